/** `trt`'s command line: commands, flags, the environment, and usage errors before anything is sent. */
import { describe, expect, it } from "vitest";
import { parseCommandLine } from "../../cli/args.ts";
import { EXIT, exitCodeOfError, UsageError } from "../../cli/exit-codes.ts";
import { ToolRuntimeError } from "../../client/index.ts";

const env = { TRT_URL: "http://rt.example", TRT_KEY: "trt_env" };

describe("trt's command line", () => {
  it("reads the command, its arguments and flags, with TRT_URL and TRT_KEY as defaults", () => {
    const p = parseCommandLine(["call", "math.evaluate", '{"expression":"1"}', "--stream", "--timeout", "500", "--version", "1.0.0"], env);
    expect(p).toMatchObject({ command: "call", args: ["math.evaluate", '{"expression":"1"}'], flags: { url: "http://rt.example", key: "trt_env", stream: true, timeout: 500, version: "1.0.0" } });
    expect(parseCommandLine(["ls", "--key", "trt_flag", "--url", "http://other"], env).flags).toMatchObject({ key: "trt_flag", url: "http://other" });
    expect(parseCommandLine(["tools"], {}).flags.url).toBe("http://127.0.0.1:8787");
    expect(parseCommandLine(["call", "x", "-"], env).args).toEqual(["x", "-"]);
    expect(parseCommandLine([], env).command).toBe("help");
  });

  it("refuses unknown commands and flags, wrong arity, bad numbers and --async with --stream", () => {
    for (const argv of [["nope"], ["tools", "--colour"], ["get"], ["get", "a", "b"], ["call", "t", "--timeout", "soon"], ["call", "t", "--async", "--stream"], ["ls", "--limit", "0"]]) {
      expect(() => parseCommandLine(argv, env), argv.join(" ")).toThrow(UsageError);
    }
  });

  it("reads approvals, approve and reject (issue 15), and refuses a rejection without a reason before sending it", () => {
    expect(parseCommandLine(["approvals"], env).command).toBe("approvals");
    expect(parseCommandLine(["approve", "exec_1", "--reason", "ok"], env)).toMatchObject({ command: "approve", args: ["exec_1"], flags: { reason: "ok" } });
    expect(parseCommandLine(["reject", "exec_1", "--reason", "wrong"], env)).toMatchObject({ command: "reject", args: ["exec_1"], flags: { reason: "wrong" } });
    for (const argv of [["reject", "exec_1"], ["reject", "exec_1", "--reason", " "], ["approve"], ["approvals", "x"]]) {
      expect(() => parseCommandLine(argv, env), argv.join(" ")).toThrow(UsageError);
    }
  });

  it("maps failures to exit codes that tell a refusal, a failed execution and a network fault apart", () => {
    const refused = new ToolRuntimeError({ code: "invalid_input", message: "", type: "request_error", retryable: false }, 400);
    const failed = new ToolRuntimeError({ code: "timeout", message: "", type: "execution_error", retryable: false }, 504, { execution_id: "e" } as never);
    const offline = new ToolRuntimeError({ code: "network_error", message: "", retryable: true }, 0);
    const badKey = new ToolRuntimeError({ code: "invalid_argument", message: "", retryable: false }, 0);
    expect([refused, failed, offline, badKey, new UsageError("x")].map(exitCodeOfError)).toEqual([EXIT.refused, EXIT.failed, EXIT.network, EXIT.usage, EXIT.usage]);
  });
});
