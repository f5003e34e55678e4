/** `trt` against the real stack: each command's output and exit code (EXIT in cli/exit-codes.ts). */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ADMIN_KEY, baseUrl, bearer, call, FILE_TENANT } from "./http.ts";
import { start, trt } from "./cli.ts";
import { provided } from "./stack.ts";

describe("trt", () => {
  it("lists the tools, describes one, and prints JSON for scripts", async () => {
    const list = await trt(["tools"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^math\.evaluate\s+1\.0\.0\s+std/m);
    const one = await trt(["tools", "text.stats"]);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/1\. std .*trust system .*breaker (closed|open|half_open)/);
    expect(one.stdout).toContain("input schema:");
    const json = JSON.parse((await trt(["tools", "--json"])).stdout);
    expect(json.tools.map((t: { name: string }) => t.name)).toContain("demo.countdown");
  });

  // --timeout: an instant tool's default budget is 100 ms, which a loaded 2-core machine can spend before dispatch.
  it("calls a tool with inline JSON, @file and standard input", async () => {
    const inline = await trt(["call", "math.evaluate", '{"expression": "6 * 7"}', "--timeout", "5000"]);
    expect(inline.code).toBe(0);
    expect(inline.stdout).toMatch(/✓ exec_\S+ {2}math\.evaluate@1\.0\.0 {2}succeeded/);
    expect(inline.stdout).toContain('"value": 42');
    expect(inline.stdout).toContain("timeout 5000 ms");
    const dir = mkdtempSync(join(tmpdir(), "trt-"));
    writeFileSync(join(dir, "in.json"), '{"expression": "2 ^ 10"}');
    const fromFile = JSON.parse(
      (await trt(["call", "math.evaluate", `@${join(dir, "in.json")}`, "--json", "--timeout", "5000"])).stdout,
    );
    expect(fromFile).toMatchObject({ status: "succeeded", output: { value: 1024 } });
    const fromStdin = await trt(["call", "text.stats", "-", "--json", "--timeout", "5000"], {
      stdin: '{"text": "one two three"}',
    });
    expect(fromStdin.code).toBe(0);
    expect(JSON.parse(fromStdin.stdout).output).toMatchObject({ words: 3 });
  });

  it("streams a call's events with a progress bar on stderr", async () => {
    const run = await trt(["call", "demo.countdown", '{"from": 4, "interval_ms": 50}', "--stream"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^\[1\] started: /m);
    // The tool's stdout, as it wrote it, between the other events.
    expect(run.stdout.split("\n").filter((l) => /^\d+$/.test(l))).toEqual(["4", "3", "2", "1"]);
    expect(run.stdout).toMatch(/\] done: /);
    expect(run.stdout).toMatch(/succeeded/);
    expect(run.stderr).toMatch(/progress \[#+-*\] +25%/);
    expect(run.stderr).toMatch(/progress \[#{30}\] 100%/);
    const ndjson = await trt(["call", "demo.countdown", '{"from": 2, "interval_ms": 10}', "--stream", "--json"]);
    const events = ndjson.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1).type).toBe("done");
  });

  // A plain sync call runs on the fast path, without an object: its stream is replayed from its record.
  it("watches a plain call's id after it answered: start, then its terminal event", async () => {
    const ok = JSON.parse(
      (await trt(["call", "math.evaluate", '{"expression": "6 * 7"}', "--json", "--timeout", "20000"])).stdout,
    );
    expect(ok.execution_id).toMatch(/^exec_e/); // an edge id: it ran without an object
    const watched = await trt(["watch", ok.execution_id, "--json"]);
    expect(watched.code).toBe(0);
    const events = watched.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(events.map((e) => [e.seq, e.type])).toEqual([
      [1, "start"],
      [2, "done"],
    ]);
    expect(events[1].data.output).toEqual(ok.output);

    const failed = await trt(["call", "lab.reject", '{"code": "not_ready"}', "--json", "--timeout", "20000"]);
    const id = JSON.parse(failed.stdout).execution_id;
    expect(id).toMatch(/^exec_e/);
    const watchedFailure = await trt(["watch", id]);
    expect(watchedFailure.code).toBe(1); // the execution failed
    expect(watchedFailure.stdout).toMatch(/\] error: /);
    expect(watchedFailure.stdout).toContain("tool_error");
  });

  it("prints its tenant's usage by day and tool to an operator, and refuses an agent's key", async () => {
    const failed = await trt(["call", "lab.reject", '{"code": "not_ready"}', "--json", "--timeout", "20000"]);
    expect(JSON.parse(failed.stdout).execution_id).toMatch(/^exec_/);
    const refused = await trt(["usage"]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("forbidden");
    // The usage follows the audit queue (about a second behind): look, bounded.
    const asOperator = { env: { TRT_KEY: ADMIN_KEY } };
    const rejected = async () => {
      const usage = JSON.parse((await trt(["usage", "--tenant", FILE_TENANT, "--json"], asOperator)).stdout);
      return usage.totals.executions.failed as number;
    };
    for (let i = 0; i < 40 && (await rejected()) === 0; i++) await new Promise((r) => setTimeout(r, 250));
    expect(await rejected()).toBeGreaterThan(0);
    const table = await trt(["usage", "--tenant", FILE_TENANT, "--tool", "lab.reject"], asOperator);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^DAY\s+TOOL\s+CALLS\s+SUCCEEDED\s+FAILED/m);
    expect(table.stdout).toMatch(/^\d{4}-\d{2}-\d{2}\s+lab\.reject\s+[1-9]/m);
    expect(table.stdout).toMatch(/^total\s+/m);
    expect(table.stdout).toContain(`tenant ${FILE_TENANT}`);
  });

  it("starts async, then gets, watches, lists and cancels by id", async () => {
    const started = await trt(["call", "demo.countdown", '{"from": 3, "interval_ms": 100}', "--async"]);
    expect(started.code).toBe(0);
    const id = /started (exec_\S+) \(running\)/.exec(started.stdout)![1];
    const got = await trt(["get", id]);
    expect(got.code).toBe(0);
    expect(got.stdout).toContain(id);
    const watched = await trt(["watch", id]);
    expect(watched.code).toBe(0);
    expect(watched.stdout).toMatch(/\] done: /);
    expect(watched.stdout).toMatch(/✓ .* succeeded/);

    const long = JSON.parse(
      (await trt(["call", "demo.countdown", '{"from": 600, "interval_ms": 100}', "--async", "--json"])).stdout,
    );
    const cancelled = await trt(["cancel", long.execution_id]);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toMatch(/■ .* cancelled/);
    expect(cancelled.stdout).toContain("partial output:");
    const after = await trt(["get", long.execution_id, "--json"]);
    expect(after.code).toBe(1); // a cancelled execution did not succeed
    expect(JSON.parse(after.stdout).status).toBe("cancelled");

    // The index follows the audit queue (about a second behind): look, bounded.
    let listed = "";
    for (let i = 0; i < 40 && !listed.includes(long.execution_id); i++) {
      listed = (await trt(["ls", "--tool", "demo.countdown", "--status", "cancelled", "--limit", "50"])).stdout;
      if (!listed.includes(long.execution_id)) await new Promise((r) => setTimeout(r, 250));
    }
    expect(listed).toMatch(new RegExp(`${long.execution_id}\\s+cancelled\\s+demo\\.countdown@1\\.0\\.0`));
  });

  it("cancels the running execution on Ctrl-C and exits 130 with its partial output", async () => {
    const run = start(["call", "demo.countdown", '{"from": 600, "interval_ms": 100}']);
    // Running once the first progress line is out (stderr is a pipe: one line per percent).
    await run.until(({ stderr }) => /progress \[/.test(stderr));
    run.child.kill("SIGINT");
    const done = await run.done;
    expect(done.code).toBe(130);
    expect(done.stderr).toMatch(/cancelling exec_\S+/);
    expect(done.stdout).toMatch(/■ (exec_\S+) {2}demo\.countdown@1\.0\.0 {2}cancelled/);
    expect(done.stdout).toContain("partial output:");
    const id = /■ (exec_\S+)/.exec(done.stdout)![1];
    const view = await call("GET", `/v1/executions/${id}`);
    expect(view.body).toMatchObject({ status: "cancelled", cancellation: { outcome: "cooperative" } });
  });

  // The stack's bootstrap works once (test/e2e/global-setup.ts): this is the one test that uses it.
  it("admin bootstrap: refuses a wrong or missing token, mints an operator key once from stdin, then refuses", async () => {
    const tenant = `ops-${crypto.randomUUID().slice(0, 8)}`;
    const noKey = { TRT_KEY: undefined };
    const wrong = await trt(["admin", "bootstrap", "--tenant", tenant], {
      env: { ...noKey, TRT_BOOTSTRAP_TOKEN: "not-the-token-but-long-enough-to-look-like-one" },
    });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain("did not accept this bootstrap token");
    const none = await trt(["admin", "bootstrap"], { env: noKey });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("TRT_BOOTSTRAP_TOKEN");

    const minted = await trt(["admin", "bootstrap", "--tenant", tenant], {
      env: noKey,
      stdin: `${provided("bootstrapToken")}\n`,
    });
    expect(minted.code).toBe(0);
    const key = minted.stdout.trim();
    expect(key).toMatch(/^trt_[A-Za-z0-9_-]+$/);
    expect(minted.stderr).toMatch(
      /operator key key_\S+ \(tenant ops-\S+, agent operator, role admin\): shown this once/,
    );
    expect(minted.stderr).toContain("POST /v1/admin/keys");
    try {
      const listed = await fetch(`${baseUrl}/v1/admin/keys?tenant=${tenant}`, { headers: bearer(key) });
      expect(listed.status).toBe(200);
      expect(((await listed.json()) as { keys: { role: string }[] }).keys).toMatchObject([{ role: "admin" }]);

      const again = await trt(["admin", "bootstrap", "--json"], {
        env: { ...noKey, TRT_BOOTSTRAP_TOKEN: provided("bootstrapToken") },
      });
      expect(again.code).toBe(3);
      expect(JSON.parse(again.stdout).error).toMatchObject({
        code: "forbidden",
        status: 403,
        details: { reason: "bootstrap_used" },
      });
      expect(again.stderr).toContain("already used");
    } finally {
      // The key is this test's; the bootstrap stays used (it cannot be undone, by design).
      const keys = (
        (await call("GET", `/v1/admin/keys?tenant=${tenant}`, undefined, bearer(ADMIN_KEY))).body as {
          keys: { key_id: string }[];
        }
      ).keys;
      for (const k of keys) await call("DELETE", `/v1/admin/keys/${k.key_id}`, undefined, bearer(ADMIN_KEY));
    }
  });
});
