/**
 * A new isolate of the runtime does not evaluate the MCP server SDK, zod under it, the
 * runtime's own upstream MCP client, protobuf, Connect, the OpenAPI document or the OAuth
 * library: they load on the first request that needs
 * them (docs/architecture.md#start-up-and-size, docs/decisions/39-lazy-faces.md). Read from the bundler's own account of the
 * runtime's upload (`wrangler deploy --dry-run --metafile`): what the entry reaches by static
 * imports runs when the isolate starts; what only a dynamic `import()` reaches waits for it.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dryRun, eagerInputs, type Metafile, runtimeConfig } from "../../scripts/bundle-sizes.ts";
import { CONNECT_PATH_PREFIX } from "../../src/connect/path.ts";
import { ToolRuntimeService } from "../../src/gen/tool_runtime/v1/runtime_pb.ts";

const out = mkdtempSync(join(tmpdir(), "tool-runtime-lazy-faces-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

let meta: Metafile;
beforeAll(async () => {
  await dryRun(runtimeConfig(), join(out, "bundle"), join(out, "meta.json"));
  meta = JSON.parse(readFileSync(join(out, "meta.json"), "utf8"));
}, 120_000);

const LAZY: [string, RegExp][] = [
  ["the MCP server SDK", /node_modules\/@modelcontextprotocol\/server\//],
  ["the MCP SDKs' shared schemas", /node_modules\/@modelcontextprotocol\/core\//],
  ["zod", /node_modules\/zod\//],
  ["protobuf", /node_modules\/@bufbuild\//],
  ["Connect", /node_modules\/@connectrpc\//],
  ["the generated protobuf code", /^src\/gen\//],
  ["the MCP face", /^src\/mcp\/(handler|server|tasks|call|listen|tools)\.ts$/],
  ["the upstream MCP client", /^src\/upstreams\/(client|mcp-wire|adapter|discovery|failures)\.ts$/],
  ["the OpenAPI document", /^src\/openapi\//],
  ["the OAuth library", /node_modules\/@cloudflare\/workers-oauth-provider\//],
  [
    "the OAuth server",
    /^src\/oauth\/(provider|consent|consent-page|consent-shell|consent-signer|grants|grant|grant-key|token-caller)\.ts$/,
  ],
  ["the identity provider's sign-in", /^src\/oauth\/idp-(sign-in|callback|token|identity|pending)\.ts$/],
];

describe("the runtime's start-up", () => {
  it.each(LAZY)("does not evaluate %s", (_, pattern) => {
    const eager = [...eagerInputs(meta, "src/index.ts")];
    expect(eager.length).toBeGreaterThan(50);
    expect(eager.filter((p) => pattern.test(p))).toEqual([]);
  });

  it.each(LAZY)("still bundles %s, for the request that needs it", (_, pattern) => {
    expect(Object.keys(meta.inputs).some((p) => pattern.test(p))).toBe(true);
  });
});

describe("the upstream hop", () => {
  it("bundles no MCP client SDK: it speaks MCP with the runtime's own client (docs/decisions/43-own-upstream-client.md)", () => {
    expect(Object.keys(meta.inputs).filter((p) => /node_modules\/@modelcontextprotocol\/client\//.test(p))).toEqual([]);
  });
});

describe("CONNECT_PATH_PREFIX", () => {
  it("is the generated service's path, written out so that routing does not load protobuf", () => {
    expect(CONNECT_PATH_PREFIX).toBe(`/${ToolRuntimeService.typeName}/`);
  });
});
