/** Iterating paginated listings (client/pages.ts): every item once, pages fetched as needed. */
import { describe, expect, it } from "vitest";
import { createClient } from "../../../client/index.ts";
import { ok, scripted, type Seen } from "./fake-runtime.ts";

const base = { baseUrl: "http://x.invalid", apiKey: "trt_x" };
// Three pages: a1 a2 | a3 a4 | a5, linked by cursors c1 and c2.
const pages: Record<string, { ids: string[]; next: string | null }> = {
  "": { ids: ["a1", "a2"], next: "c1" },
  c1: { ids: ["a3", "a4"], next: "c2" },
  c2: { ids: ["a5"], next: null },
};
const executions = ({ url }: Seen) => {
  const p = pages[url.searchParams.get("cursor") ?? ""];
  return ok({ executions: p.ids.map((execution_id) => ({ execution_id })), next_cursor: p.next });
};

describe("iterating a paginated listing", () => {
  it("yields every execution of every page, in order, with the filters on each request", async () => {
    const rt = scripted(executions);
    const ids: string[] = [];
    for await (const e of createClient({ ...base, fetch: rt.fetch }).executions.all({ status: "failed", limit: 2 }))
      ids.push(e.execution_id);
    expect(ids).toEqual(["a1", "a2", "a3", "a4", "a5"]);
    expect(
      rt.seen.map((s) => [
        s.url.pathname,
        s.url.searchParams.get("status"),
        s.url.searchParams.get("limit"),
        s.url.searchParams.get("cursor"),
      ]),
    ).toEqual([
      ["/v1/executions", "failed", "2", null],
      ["/v1/executions", "failed", "2", "c1"],
      ["/v1/executions", "failed", "2", "c2"],
    ]);
  });

  it("fetches no page after the loop stops", async () => {
    const rt = scripted(executions);
    for await (const e of createClient({ ...base, fetch: rt.fetch }).executions.all())
      if (e.execution_id === "a2") break;
    expect(rt.seen).toHaveLength(1);
  });

  it("starts from a given cursor", async () => {
    const rt = scripted(executions);
    const ids: string[] = [];
    for await (const e of createClient({ ...base, fetch: rt.fetch }).executions.all({ cursor: "c1" }))
      ids.push(e.execution_id);
    expect(ids).toEqual(["a3", "a4", "a5"]);
  });

  it("walks the audit log the same way, with its tenant filter", async () => {
    const rt = scripted(({ url }) => {
      const p = pages[url.searchParams.get("cursor") ?? ""];
      return ok({ records: p.ids.map((execution_id) => ({ execution_id })), next_cursor: p.next });
    });
    const ids: string[] = [];
    for await (const r of createClient({ ...base, fetch: rt.fetch }).audit.all({ tenant: "acme" }))
      ids.push(r.execution_id);
    expect(ids).toEqual(["a1", "a2", "a3", "a4", "a5"]);
    expect(rt.seen.every((s) => s.url.pathname === "/v1/audit" && s.url.searchParams.get("tenant") === "acme")).toBe(
      true,
    );
  });

  it("stops with bad_response rather than loop when a cursor comes back twice", async () => {
    const rt = scripted(ok({ executions: [{ execution_id: "x" }], next_cursor: "same" }));
    let n = 0;
    const err = await (async () => {
      for await (const _ of createClient({ ...base, fetch: rt.fetch }).executions.all()) n++;
    })().catch((e) => e);
    expect(err).toMatchObject({ code: "bad_response", local: true });
    expect(n).toBe(2);
  });
});
