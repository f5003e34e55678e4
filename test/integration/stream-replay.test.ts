/**
 * A fast-path execution's stream is replayed from its record (docs/contract.md#streaming): `start`
 * then exactly one terminal event, whose data is what GET answers, and the stream closes. A
 * resume between them gets the rest, one at the terminal event 204; the id stays as hidden from
 * other tenants and agents as GET keeps it, and a replay gives its stream slot back when it closes.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.ts";
import { newEdgeExecutionId } from "../../src/execution/ids.ts";
import { mintKey, send, withTenantLimits, type Answer } from "./worker-http.ts";

// One stream slot: a replay that kept its slot would leave the next one refused.
const e = withTenantLimits({ "replay-*": { max_streams: 1, requests_per_second: 1000, burst: 1000 } });
const tenant = () => `replay-${crypto.randomUUID().slice(0, 8)}`;
// An instant tool's default budget (100 ms) can be shed on a loaded machine.
const roomy = { timeout_ms: 20_000 };

interface SseEvent {
  id: string;
  event: string;
  data: { seq: number; type: string; at: string; data: any };
}

/** The SSE answer's events, and whether it began with `retry`. */
function parse(a: Answer): { retry: string | undefined; events: SseEvent[] } {
  const frames = String(a.json)
    .split("\n\n")
    .filter((f) => f.trim() !== "");
  const field = (frame: string, name: string) =>
    frame
      .split("\n")
      .find((l) => l.startsWith(`${name}: `))
      ?.slice(name.length + 2);
  return {
    retry: field(frames[0] ?? "", "retry"),
    events: frames
      .filter((f) => field(f, "event") !== undefined)
      .map((f) => ({ id: field(f, "id")!, event: field(f, "event")!, data: JSON.parse(field(f, "data")!) })),
  };
}

async function fastCall(key: string, body: Record<string, unknown>): Promise<{ id: string; view: any }> {
  const call = await send(e, "POST", "/v1/executions", key, { ...body, limits: roomy });
  const id: string = call.json.execution_id;
  // An edge id: the call ran on the fast path, without an object.
  expect(id).toMatch(/^exec_e/);
  const got = await send(e, "GET", `/v1/executions/${id}`, key);
  expect(got.status).toBe(200);
  return { id, view: got.json };
}

describe("the stream of a fast-path execution", () => {
  it("replays start then done with the output GET answers, and closes", async () => {
    const key = await mintKey(e, tenant());
    const { id, view } = await fastCall(key, { tool: "lab.echo", input: { replay: "yes" } });
    expect(view.status).toBe("succeeded");
    const res = await send(e, "GET", `/v1/executions/${id}/stream`, key);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const { retry, events } = parse(res);
    expect(retry).toBe("2000");
    expect(events.map((x) => [x.id, x.event])).toEqual([
      ["1", "start"],
      ["2", "done"],
    ]);
    const [start, done] = events.map((x) => x.data);
    expect(start).toMatchObject({
      seq: 1,
      type: "start",
      data: { sandbox: "v8-isolate", worker: view.execution.worker },
    });
    expect(done.data.output).toEqual(view.output);
    expect(done.data.execution).toEqual({ ...view.execution, resources: expect.anything() });
    // The instants follow from when it was accepted and the view's durations.
    expect(Date.parse(done.at) - Date.parse(start.at)).toBe(view.execution.duration_ms);

    const rest = parse(await send(e, "GET", `/v1/executions/${id}/stream?after=1`, key));
    expect(rest.events.map((x) => x.event)).toEqual(["done"]);
    expect(rest.events[0]!.data).toEqual(done);
    for (const after of [2, 9]) {
      const past = await send(e, "GET", `/v1/executions/${id}/stream?after=${after}`, key);
      expect(past.status).toBe(204);
    }
  });

  it("replays start then error with the status and error GET answers", async () => {
    const key = await mintKey(e, tenant());
    const { id, view } = await fastCall(key, { tool: "lab.reject", input: { code: "not_ready" } });
    expect(view.status).toBe("failed");
    expect(view.error.code).toBe("tool_error");
    const { events } = parse(await send(e, "GET", `/v1/executions/${id}/stream`, key));
    expect(events.map((x) => x.event)).toEqual(["start", "error"]);
    const error = events[1]!.data;
    expect(error.seq).toBe(2);
    expect(error.data.status).toBe(view.status);
    expect(error.data.error).toEqual(view.error);
    expect(error.data.execution).toEqual({ ...view.execution, resources: expect.anything() });
  });

  it("gives its stream slot back when it closes", async () => {
    const key = await mintKey(e, tenant());
    const { id } = await fastCall(key, { tool: "lab.echo", input: { slot: 1 } });
    // max_streams is 1: each replay after the first is served only if the one before gave its slot back.
    for (let i = 0; i < 3; i++) {
      const res = await send(e, "GET", `/v1/executions/${id}/stream`, key);
      expect(res.status).toBe(200);
      expect(parse(res).events).toHaveLength(2);
    }
  });

  it("is as unknown to another tenant, another agent and an unknown id as GET keeps it", async () => {
    const owner = tenant();
    const key = await mintKey(e, owner);
    const { id } = await fastCall(key, { tool: "lab.echo", input: { hidden: true } });
    const stranger = await mintKey(e, tenant());
    const colleague = await mintKey(e, owner, { agent: "another-agent" });
    for (const who of [stranger, colleague]) {
      const res = await send(e, "GET", `/v1/executions/${id}/stream`, who);
      expect(res.status).toBe(404);
      expect(res.json.error.code).toBe("execution_not_found");
    }
    // A real id no call ever used, long enough ago that no record can still be on its way.
    const unknown = newEdgeExecutionId(env, Date.now() - loadConfig(env).systemMaxTimeoutMs - 60_000);
    const res = await send(e, "GET", `/v1/executions/${unknown}/stream`, key);
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe("execution_not_found");
  });
});
