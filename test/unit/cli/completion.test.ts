/** `trt completion bash|zsh|fish`: the bash script run by a real bash, the others checked for what they complete. */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bashCompletion, fishCompletion, zshCompletion } from "../../../cli/completion.ts";
import { COMMAND_SPECS, TOP_LEVEL } from "../../../cli/spec.ts";

/** What bash offers after `line` (the cursor at its end), with the script loaded. */
function complete(line: string): string[] {
  const words = line.split(" ");
  const program = `${bashCompletion()}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _trt; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return execFileSync("bash", ["--norc", "--noprofile", "-c", program], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
}

describe("trt's shell completions", () => {
  it.runIf(existsSync("/bin/bash") || existsSync("/usr/bin/bash"))(
    "completes commands, subcommands, each command's own flags and fixed values in bash",
    () => {
      expect(complete("trt ")).toEqual(expect.arrayContaining([...TOP_LEVEL]));
      expect(complete("trt up")).toEqual(["upstreams"]);
      expect(complete("trt keys ")).toEqual(["list", "create", "revoke"]);
      expect(complete("trt keys create --")).toEqual(
        expect.arrayContaining(["--tenant", "--agent", "--capability", "--role", "--output"]),
      );
      expect(complete("trt keys create --")).not.toContain("--async");
      expect(complete("trt call math.evaluate --a")).toEqual(["--async"]);
      expect(complete("trt --url http://x call x --tool")).toEqual(["--tool-version"]);
      expect(complete("trt ls -o ")).toEqual(["table", "json"]);
      expect(complete("trt keys create --role a")).toEqual(["agent", "approver", "admin"]);
      expect(complete("trt keys create --role t")).toEqual(["tenant_admin"]);
      expect(complete("trt completion ")).toEqual(["bash", "zsh", "fish"]);
      expect(complete("trt bundles ")).toEqual(["list", "show", "put", "remove"]);
      expect(complete("trt bundles put b --t")).toEqual(expect.arrayContaining(["--tools", "--tags", "--tenant"]));
      expect(complete("trt bundles put b --discovery ")).toEqual(["list", "search"]);
      expect(complete("trt help pro")).toEqual(["profile"]);
    },
  );

  it("writes a zsh script on bashcompinit and a fish script with every command and flag", () => {
    expect(zshCompletion()).toMatch(/^#compdef trt\n/);
    expect(zshCompletion()).toContain("bashcompinit");
    expect(zshCompletion()).toContain("complete -o default -F _trt trt");
    const fish = fishCompletion();
    for (const top of TOP_LEVEL) expect(fish).toContain(`-n '__fish_use_subcommand' -a ${top} `);
    for (const spec of COMMAND_SPECS)
      for (const flag of spec.flags)
        expect(fish, `${spec.name} --${flag}`).toMatch(
          new RegExp(
            `__fish_seen_subcommand_from ${spec.name.split(" ").join("; and __fish_seen_subcommand_from ")}' (-s \\w )?-l ${flag} `,
          ),
        );
    expect(fish).toContain("-s o -l output -x -a 'table json'");
  });
});
