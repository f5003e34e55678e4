/**
 * The README test's own parts can fail: the block markup is read as documented, the guide's
 * pages are found in the README's order and none is left out, and an output that differs from
 * the document's is reported (test/readme/).
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { matchHttp, matchJson, matchText } from "../../readme/expect-output.ts";
import {
  allBlocks,
  blocksOf,
  documents,
  fileOf,
  guideOrder,
  guidePages,
  isRun,
  readme,
  runBlocks,
} from "../../readme/markdown.ts";

const fence = "```";

describe("README blocks", () => {
  const md = [
    "# Title",
    `${fence}sh no-run`,
    "npm start",
    fence,
    "Then:",
    `${fence}sh`,
    "curl -s $TRT/x",
    fence,
    "",
    `${fence}json`,
    '{"a": 1}',
    fence,
    "- a list item:",
    `  ${fence}js run`,
    "  console.log(1);",
    `  ${fence}`,
    "  text between",
    `  ${fence}text`,
    "  not an output",
    `  ${fence}`,
    "## Provider",
    `${fence}ts file=providers/x/src/index.ts`,
    "export {};",
    fence,
  ].join("\n");
  const blocks = blocksOf(md);

  it("reads language, flags, indentation and headings", () => {
    expect(blocks.map((b) => [b.lang, b.flags, b.heading, b.line])).toEqual([
      ["sh", ["no-run"], "Title", 2],
      ["sh", [], "Title", 6],
      ["json", [], "Title", 10],
      ["js", ["run"], "Title", 14],
      ["text", [], "Title", 18],
      ["ts", ["file=providers/x/src/index.ts"], "Provider", 22],
    ]);
    expect(blocks[3].code).toBe("console.log(1);\n");
    expect(fileOf(blocks[5])).toBe("providers/x/src/index.ts");
  });

  it("pairs a run block with the output block right after it, and only then", () => {
    expect(blocks.map(isRun)).toEqual([false, true, false, true, false, false]);
    const runs = runBlocks(blocks);
    expect(runs.map((r) => r.expected?.line)).toEqual([10, undefined]);
  });

  it("says which document a block is in", () => {
    expect(blocksOf(md, "docs/guide/x.md").map((b) => b.file)).toEqual(Array(6).fill("docs/guide/x.md"));
    expect(blocks[0].file).toBe("README.md");
  });
});

describe("the documents that run", () => {
  const root = join(import.meta.dirname, "..", "..", "..");

  it("orders the guide as the README links it, each page once, anchors and other links aside", () => {
    const text =
      "[b](docs/guide/errors.md) then [a](docs/guide/calling.md#dry-run), [b again](docs/guide/errors.md), [other](docs/deploy.md)";
    expect(guideOrder(text)).toEqual(["docs/guide/errors.md", "docs/guide/calling.md"]);
  });

  it("runs README.md first, then every page of docs/guide (none unlinked, so none unrun)", () => {
    const docs = documents(root);
    expect(docs[0]).toBe("README.md");
    expect([...docs.slice(1)].sort()).toEqual(guidePages(root));
  });

  it("keeps every example that ran before the guide left the README: 34 run blocks, 25 with output, at least", () => {
    const runs = runBlocks(allBlocks(root));
    expect(runs.length).toBeGreaterThanOrEqual(34);
    expect(runs.filter((r) => r.expected).length).toBeGreaterThanOrEqual(25);
    // The README itself still shows calls that run, and so does every guide page with commands.
    expect(runs.filter((r) => r.file === "README.md").length).toBeGreaterThanOrEqual(3);
    expect(runBlocks(readme(join(root, "README.md"))).length).toBe(runs.filter((r) => r.file === "README.md").length);
  });
});

describe("JSON output patterns", () => {
  it("accepts what varies where the README says …", () => {
    expect(
      matchJson('{"execution_id": "exec_…", "status": "running"}', '{"status":"running","execution_id":"exec_9f"}'),
    ).toEqual([]);
    expect(
      matchJson(
        '{"output": {"value": 98}, "execution": {…}, …}',
        '{"output":{"value":98},"execution":{"a":1},"tool":"x"}',
      ),
    ).toEqual([]);
    expect(matchJson('{"counted": [30, 29, …], "p50_ms": …}', '{"counted":[30,29,28,27],"p50_ms":null}')).toEqual([]);
    expect(matchJson('[…, {"n": 3}]', '[{"n":1},{"n":2},{"n":3}]')).toEqual([]);
    expect(matchJson('{"a": 1}\n{"b": "x…"}', '{"a":1}\n{\n  "b": "xyz"\n}')).toEqual([]);
  });

  it("reports a value, a key, a missing key, an array and a count that differ", () => {
    expect(matchJson('{"output": {"value": 98}}', '{"output":{"value":97}}')).toEqual([
      "/output/value: expected 98, got 97",
    ]);
    expect(matchJson('{"status": "succeeded"}', '{"status":"succeeded","error":null}')).toEqual([
      expect.stringContaining('keys the README does not show (add them, or "…"): error'),
    ]);
    expect(matchJson('{"status": "succeeded", …}', '{"error":{}}')).toEqual(["/status: missing"]);
    expect(matchJson('{"counted": [30, 29, …]}', '{"counted":[30]}')).toEqual([
      expect.stringContaining("/counted: expected an array like [30, 29, …]"),
    ]);
    expect(matchJson('{"id": "exec_…"}', '{"id":"key_1"}')).toEqual([
      '/id: expected a string like "exec_…", got "key_1"',
    ]);
    expect(matchJson('{"a": 1}', '{"a":1}\n{"a":2}')).toEqual([
      expect.stringContaining("expected 1 JSON value(s), got 2"),
    ]);
    expect(matchJson('{"a": 1}', "<html>")).toEqual([expect.stringContaining("the output is not JSON")]);
  });
});

describe("text and http output patterns", () => {
  it("matches lines with … inside and … lines", () => {
    const sse = 'retry: 2000\n\nid: 1\nevent: start\ndata: {"seq":1,"at":"2026"}\n\nid: 2\nevent: error\ndata: {}\n';
    expect(matchText('retry: 2000\n\nid: 1\nevent: start\ndata: {"seq":1,"at":"…"}\n…\nevent: error\n…', sse)).toEqual(
      [],
    );
    expect(matchText("retry: 2000\n…\nevent: done\n…", sse)).toEqual([expect.stringContaining("do not match")]);
  });

  it("matches a status line, the headers shown in any order and case, and the body", () => {
    const answer =
      'HTTP/1.1 202 Accepted\r\nContent-Type: application/json\r\nLocation: /v1/executions/exec_1\r\n\r\n{"execution_id":"exec_1","status":"running"}';
    expect(
      matchHttp(
        'HTTP/1.1 202 Accepted\nlocation: /v1/executions/exec_…\n…\n\n{"execution_id": "exec_…", "status": "running"}',
        answer,
      ),
    ).toEqual([]);
    expect(matchHttp("HTTP/1.1 200 OK\nRetry-After: …\n\n{…}", answer)).toEqual([
      expect.stringContaining("status line"),
      expect.stringContaining('header "Retry-After: …"'),
    ]);
  });
});
