/** `trt`'s command line: commands, flags, the environment, and usage errors before anything is sent. */
import { describe, expect, it } from "vitest";
import { COMMAND_SPECS, parseCommandLine } from "../../../cli/args.ts";
import { commandUsage, generalUsage } from "../../../cli/help.ts";
import { EXIT, exitCodeOfError, UsageError } from "../../../cli/exit-codes.ts";
import { ToolRuntimeError } from "../../../client/index.ts";
import { ApiError } from "../../../cli/api.ts";

const parse = (argv: string[]) => parseCommandLine(argv);

describe("trt's command line", () => {
  it("reads the command, its arguments and flags", () => {
    const p = parse([
      "call",
      "math.evaluate",
      '{"expression":"1"}',
      "--stream",
      "--timeout",
      "500",
      "--version",
      "1.0.0",
    ]);
    expect(p).toMatchObject({
      command: "call",
      args: ["math.evaluate", '{"expression":"1"}'],
      flags: { stream: true, timeout: 500, version: "1.0.0" },
    });
    expect(parse(["ls", "--key", "trt_flag", "--url", "http://other"]).flags).toMatchObject({
      key: "trt_flag",
      url: "http://other",
    });
    expect(parse(["call", "x", "-"]).args).toEqual(["x", "-"]);
    expect(parse([]).command).toBe("help");
    // Global flags before the command: their values are not taken for the command.
    expect(parse(["--url", "http://x", "-o", "json", "tools", "math.evaluate"])).toMatchObject({
      command: "tools",
      args: ["math.evaluate"],
      flags: { url: "http://x", output: "json", json: true },
    });
  });

  it("prints trt's version for --version and -V, but after call --version V is the tool's", () => {
    for (const argv of [["--version"], ["-V"], ["tools", "--version"], ["call", "x", "-V"]])
      expect(parse(argv).command, argv.join(" ")).toBe("version");
    expect(parse(["call", "x", "--version", "2.0.0"]).flags.version).toBe("2.0.0");
    expect(parse(["call", "x", "--tool-version", "2.0.0"]).flags.version).toBe("2.0.0");
    expect(() => parse(["call", "x", "--version"])).toThrow(
      /--version needs a value: after `call` it is the tool's version/,
    );
    expect(() => parse(["call", "x", "--version", "1", "--tool-version", "2"])).toThrow(UsageError);
  });

  it("answers --help and help COMMAND with that command's own usage, for every command and group", () => {
    for (const spec of COMMAND_SPECS) {
      const words = spec.name.split(" ");
      expect(parse([...words, "--help"]), spec.name).toMatchObject({ command: "help", args: words });
      expect(parse(["help", ...words]), spec.name).toMatchObject({ command: "help", args: words });
      expect(commandUsage(words), spec.name).toContain(`usage: trt ${spec.name}`);
      for (const flag of spec.flags) expect(commandUsage(words), `${spec.name} --${flag}`).toContain(`--${flag}`);
    }
    expect(parse(["keys", "-h"])).toMatchObject({ command: "help", args: ["keys"] });
    expect(commandUsage(["keys"])).toMatch(/keys create[\s\S]*keys revoke KEY_ID/);
    expect(commandUsage(["call"])).not.toContain("keys create");
    expect(generalUsage()).toMatch(/exit codes: 0 done · 1 .* 2 bad arguments/s);
    expect(() => parse(["help", "nope"])).toThrow(/unknown command "nope"/);
  });

  it("reads --output json|table, with --json as its alias", () => {
    expect(parse(["ls"]).flags).toMatchObject({ output: "table", json: false });
    expect(parse(["ls", "--json"]).flags).toMatchObject({ output: "json", json: true });
    expect(parse(["ls", "--output=json"]).flags.json).toBe(true);
    expect(() => parse(["ls", "-o", "yaml"])).toThrow(/--output must be table or json/);
    expect(() => parse(["ls", "--json", "-o", "table"])).toThrow(UsageError);
  });

  it("reads the admin commands and refuses what they cannot do without", () => {
    expect(
      parse([
        "keys",
        "create",
        "--tenant",
        "t",
        "--agent",
        "a",
        "--capability",
        "network:*",
        "--capability",
        "fs:read",
        "--channel",
        "*",
        "--role",
        "approver",
      ]),
    ).toMatchObject({
      command: "keys create",
      flags: { tenant: "t", agent: "a", capability: ["network:*", "fs:read"], channel: ["*"], role: "approver" },
    });
    expect(parse(["audit", "--tenant", "t", "--since", "2026-01-01T00:00:00Z", "--limit", "5"]).flags).toMatchObject({
      tenant: "t",
      since: "2026-01-01T00:00:00Z",
      limit: 5,
    });
    expect(parse(["usage", "--from", "2026-11-01", "--to", "2026-11-30", "--tenant", "t"])).toMatchObject({
      command: "usage",
      flags: { from: "2026-11-01", to: "2026-11-30", tenant: "t" },
    });
    expect(parse(["upstreams", "approve", "u", "echo", "--hash", "ab"])).toMatchObject({
      command: "upstreams approve",
      args: ["u", "echo"],
      flags: { hash: "ab" },
    });
    const bad = [
      ["keys"],
      ["keys", "create", "--tenant", "t"],
      ["keys", "create", "--tenant", "t", "--agent", "a", "--role", "god"],
      ["keys", "revoke"],
      ["audit", "--since", "yesterday"],
      ["upstreams", "approve", "u", "t"],
      ["upstreams", "show"],
      ["profile", "add", "p"],
      ["profile", "add", "p", "--url", "http://x", "--key", "k"],
      ["profile", "add", "p", "--url", "http://x", "--key-env", "A", "--key-file", "f"],
      ["completion"],
    ];
    for (const argv of bad) expect(() => parse(argv), argv.join(" ")).toThrow(UsageError);
  });

  it("names the problem in one line with a hint for unknown commands and flags", () => {
    expect(() => parse(["tols"])).toThrow(
      'unknown command "tols" (did you mean tools?); trt --help lists the commands',
    );
    expect(() => parse(["keys", "lst"])).toThrow(/unknown command "keys lst" \(did you mean list\?\)/);
    expect(() => parse(["ls", "--limt", "3"])).toThrow(
      /unknown flag --limt for trt ls \(did you mean --limit\?\); trt ls --help lists its flags/,
    );
    expect(() => parse(["tools", "--async"])).toThrow(/unknown flag --async for trt tools/);
  });

  it("refuses unknown commands and flags, wrong arity, bad numbers and --async with --stream", () => {
    for (const argv of [
      ["nope"],
      ["tools", "--colour"],
      ["get"],
      ["get", "a", "b"],
      ["call", "t", "--timeout", "soon"],
      ["call", "t", "--async", "--stream"],
      ["ls", "--limit", "0"],
    ]) {
      expect(() => parse(argv), argv.join(" ")).toThrow(UsageError);
    }
  });

  it("reads approvals, approve and reject (docs/contract.md#approvals), and refuses a rejection without a reason before sending it", () => {
    expect(parse(["approvals"]).command).toBe("approvals");
    expect(parse(["approve", "exec_1", "--reason", "ok"])).toMatchObject({
      command: "approve",
      args: ["exec_1"],
      flags: { reason: "ok" },
    });
    expect(parse(["reject", "exec_1", "--reason", "wrong"])).toMatchObject({
      command: "reject",
      args: ["exec_1"],
      flags: { reason: "wrong" },
    });
    for (const argv of [["reject", "exec_1"], ["reject", "exec_1", "--reason", " "], ["approve"], ["approvals", "x"]]) {
      expect(() => parse(argv), argv.join(" ")).toThrow(UsageError);
    }
  });

  it("maps failures to exit codes from their code and status, whatever their class", () => {
    const refused = new ToolRuntimeError(
      { code: "invalid_input", message: "", type: "request_error", retryable: false },
      400,
    );
    const failed = new ToolRuntimeError(
      { code: "timeout", message: "", type: "execution_error", retryable: false },
      504,
      { execution_id: "e" } as never,
    );
    const offline = new ToolRuntimeError({ code: "network_error", message: "", retryable: true }, 0);
    const badKey = new ToolRuntimeError({ code: "invalid_argument", message: "", retryable: false }, 0);
    expect([refused, failed, offline, badKey, new UsageError("x")].map(exitCodeOfError)).toEqual([
      EXIT.refused,
      EXIT.failed,
      EXIT.network,
      EXIT.usage,
      EXIT.usage,
    ]);
    expect([new ApiError("forbidden", "", 403), new ApiError("network_error", "", 0)].map(exitCodeOfError)).toEqual([
      EXIT.refused,
      EXIT.network,
    ]);
  });
});
