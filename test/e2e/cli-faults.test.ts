/** `trt` when things go wrong: words that say what to do, and exit codes that tell the cases apart. */
import { describe, expect, it } from "vitest";
import { trt } from "./cli.ts";

describe("trt when things go wrong", () => {
  it("exits 3 with the violations when the runtime refuses the input", async () => {
    const run = await trt(["call", "math.evaluate", '{"expr": "1"}']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("The input does not match the tool's schema.");
    expect(run.stderr).toMatch(/\/expression: /);
    expect(run.stdout).toBe("");
  });

  it("exits 3 for a wrong key and says to set TRT_KEY", async () => {
    const run = await trt(["tools"], { env: { TRT_KEY: "trt_not_a_real_key" } });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("did not accept this API key");
    expect(run.stderr).toContain("Set TRT_KEY");
  });

  it("exits 2 without sending anything for a key with a non-ASCII character", async () => {
    const run = await trt(["tools"], { env: { TRT_KEY: "trt_…" } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('the API key contains "…" at position 5');
    expect(run.stderr).not.toMatch(/reach/);
  });

  it("exits 4 when the runtime cannot be reached", async () => {
    const run = await trt(["tools"], { env: { TRT_URL: "http://127.0.0.1:9" } });
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/could not reach the runtime at http:\/\/127\.0\.0\.1:9/i);
    expect(run.stderr).toContain("Check TRT_URL");
  });

  it("exits 1 when the execution ran and failed, and prints its view as JSON with --json", async () => {
    const run = await trt(["call", "lab.bad_output", "{}", "--json"]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "failed", error: { code: "invalid_output" } });
    const human = await trt(["call", "lab.crash", "{}"]);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/✗ .* failed/);
    expect(human.stdout).toContain("error provider_crashed");
  });

  it("exits 2 for bad arguments and unreadable input, naming the problem", async () => {
    const unknown = await trt(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    const notJson = await trt(["call", "math.evaluate", "{expression: 1}"]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain("is not valid JSON");
    const noFile = await trt(["call", "math.evaluate", "@/nonexistent/input.json"]);
    expect(noFile.code).toBe(2);
    expect(noFile.stderr).toContain("cannot read the input file /nonexistent/input.json: ENOENT");
    const noKey = await trt(["tools"], { env: { TRT_KEY: undefined } });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("no API key");
    const both = await trt(["call", "math.evaluate", "{}", "--async", "--stream"]);
    expect(both.code).toBe(2);
  });

  it("exits 3 for an unknown execution id and says what the id may be", async () => {
    const run = await trt(["get", "exec_00000000000000000000000000000000"]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("No such execution");
  });
});
