/** docs/contract.md#formats: the same calls in MessagePack, with identical semantics; bytes stay bytes. */
import { decode, encode } from "@msgpack/msgpack";
import { describe, expect, it } from "vitest";
import { baseUrl, bearer, DEV_KEY, execute, roomy } from "./http.ts";

async function msgpack(body: unknown, options: { contentType?: string; accept?: string; raw?: Uint8Array } = {}) {
  const res = await fetch(`${baseUrl}/v1/executions`, {
    method: "POST",
    headers: {
      "content-type": options.contentType ?? "application/msgpack",
      accept: options.accept ?? "application/msgpack",
      ...bearer(DEV_KEY),
    },
    body: (options.raw ?? encode(roomy(body))) as BodyInit,
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get("content-type"), body: decode(bytes) as any };
}

describe("MessagePack", () => {
  it("gives the same output and status as JSON", async () => {
    const call = { tool: "math.evaluate", input: { expression: "7 * 6" } };
    const [json, mp] = [await execute(call), await msgpack(call)];
    expect(mp.type).toBe("application/msgpack");
    expect([mp.status, mp.body.status, mp.body.output]).toEqual([json.status, json.body.status, json.body.output]);
  });

  it("answers errors in MessagePack with the same codes", async () => {
    const bad = { tool: "math.evaluate", input: { nope: 1 } };
    const [json, mp] = [await execute(bad), await msgpack(bad)];
    expect(mp.status).toBe(400);
    expect(mp.body.error.code).toBe(json.body.error.code);
    expect(mp.body.error.details.violations).toEqual(json.body.error.details.violations);
    const unknown = await msgpack({ tool: "no.such", input: {} }, { contentType: "application/vnd.msgpack" });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "tool_not_found"]);
  });

  it("carries binary values to the provider and back as bytes", async () => {
    const blob = new Uint8Array([0, 1, 2, 250, 255]);
    const res = await msgpack({ tool: "lab.echo", input: { blob, note: "bytes" } });
    expect(res.status).toBe(200);
    expect(res.body.output.blob).toBeInstanceOf(Uint8Array);
    expect([...res.body.output.blob]).toEqual([...blob]);
    // JSON callers see the same bytes as {"$base64": …}.
    const again = await fetch(`${baseUrl}/v1/executions/${res.body.execution_id}`, { headers: bearer(DEV_KEY) });
    expect(((await again.json()) as any).output.blob).toEqual({ $base64: btoa(String.fromCharCode(...blob)) });
  });

  it("answers in the format with the highest q-value in Accept, and never in one with q=0", async () => {
    const accept = async (value: string) => {
      const res = await fetch(`${baseUrl}/v1/executions`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: value, ...bearer(DEV_KEY) },
        body: JSON.stringify(roomy({ tool: "math.evaluate", input: { expression: "6 * 7" } })),
      });
      const bytes = new Uint8Array(await res.arrayBuffer());
      const type = res.headers.get("content-type") ?? "";
      return {
        status: res.status,
        type,
        body: (type.startsWith("application/msgpack")
          ? decode(bytes)
          : JSON.parse(new TextDecoder().decode(bytes))) as any,
      };
    };
    // MessagePack listed first but preferred less: JSON.
    const json = await accept("application/msgpack;q=0.5, application/json;q=0.9");
    expect([json.status, json.type, json.body.output]).toEqual([200, "application/json", { value: 42 }]);
    // JSON listed first but preferred less: MessagePack.
    const mp = await accept("application/json;q=0.2, application/vnd.msgpack;q=0.8");
    expect([mp.status, mp.type, mp.body.output]).toEqual([200, "application/msgpack", { value: 42 }]);
    // q=0 means "not this": the wildcard's JSON, not the MessagePack it refuses.
    const notMp = await accept("application/msgpack;q=0, */*;q=0.1");
    expect([notMp.status, notMp.type]).toEqual([200, "application/json"]);
    // Nothing acceptable left: 406, in JSON.
    const none = await accept("application/msgpack;q=0, text/html");
    expect([none.status, none.type, none.body.error.code]).toEqual([406, "application/json", "not_acceptable"]);
  });

  it("refuses malformed MessagePack with invalid_request", async () => {
    const res = await msgpack(undefined, { raw: new Uint8Array([0xc1, 0xff, 0x00]) });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
  });
});
