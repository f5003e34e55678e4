/**
 * Registering an upstream (docs/contract.md#upstreams): what a registration may say, the
 * conservative defaults for what it leaves out, and where an https upstream may not be.
 */
import { describe, expect, it } from "vitest";
import { parseUpstream, parseUpstreams, policyFor, UpstreamConfigError } from "../../../src/upstreams/config.ts";
import { checkUpstreamUrl } from "../../../src/upstreams/egress.ts";
import { egressPolicyFrom } from "../../../providers/std/src/tools/egress-policy.ts";

const minimal = { name: "docs", url: "https://mcp.example.com/mcp", trust: "community", tools: ["search"] };
const refusal = (raw: unknown) => {
  try {
    parseUpstream(raw, "admin");
  } catch (err) {
    if (err instanceof UpstreamConfigError) return err.field;
    throw err;
  }
  return "accepted";
};

describe("parseUpstream", () => {
  it("fills what MCP does not say with the conservative choice", () => {
    const u = parseUpstream(minimal, "admin");
    expect(u).toMatchObject({
      prefix: "",
      on_change: "keep",
      version: "1.0.0",
      tenant_credentials: false,
      source: "admin",
    });
    expect(policyFor(u, "search")).toEqual({
      latency_class: "slow",
      effects: "send",
      idempotent: false,
      capability_required: null,
    });
  });

  it("takes the operator's defaults, and a tool's own policy over them", () => {
    const u = parseUpstream(
      {
        ...minimal,
        defaults: { effects: "read", idempotent: true },
        tool_policies: { search: { latency_class: "fast" } },
      },
      "config",
    );
    expect(policyFor(u, "search")).toEqual({
      latency_class: "fast",
      effects: "read",
      idempotent: true,
      capability_required: null,
    });
    expect(policyFor(u, "other")).toMatchObject({ latency_class: "slow", effects: "read" });
  });

  it("refuses what it cannot honour, naming the field", () => {
    expect(refusal({ ...minimal, name: "Docs" })).toBe("name");
    expect(refusal({ ...minimal, binding: "UPSTREAM_DOCS" })).toBe("url");
    expect(refusal({ name: "docs", trust: "community", tools: ["x"] })).toBe("url");
    expect(refusal({ ...minimal, trust: "root" })).toBe("trust");
    expect(refusal({ ...minimal, tools: [] })).toBe("tools");
    expect(refusal({ ...minimal, tools: ["*", "x"] })).toBe("tools");
    expect(refusal({ ...minimal, secret: "sk-live-123" })).toBe("secret");
    expect(refusal({ ...minimal, defaults: { effects: "explode" } })).toBe("defaults.effects");
    expect(refusal({ ...minimal, on_change: "accept" })).toBe("on_change");
    expect(refusal({ ...minimal, version: "v2" })).toBe("version");
    expect(refusal({ ...minimal, token: "x" })).toBe("token");
  });

  it("refuses an UPSTREAMS entry that takes a provider's name", () => {
    expect(() => parseUpstreams(JSON.stringify([{ ...minimal, name: "std" }]), ["std"])).toThrow(/already a provider/);
    expect(() => parseUpstreams("[{", [])).toThrow(/not valid JSON/);
    expect(parseUpstreams(undefined, [])).toEqual([]);
  });
});

describe("checkUpstreamUrl (the egress guard of http.request, https only)", () => {
  const policy = egressPolicyFrom({});
  const reason = (url: string, p = policy) => {
    const r = checkUpstreamUrl(new URL(url), p);
    return r.ok ? "ok" : r.reason;
  };

  it("allows a public https endpoint", () => {
    expect(reason("https://mcp.example.com/mcp")).toBe("ok");
  });

  it("refuses private, loopback, metadata and internal addresses in any spelling", () => {
    expect(reason("https://127.0.0.1/mcp")).toBe("loopback");
    expect(reason("https://2130706433/mcp")).toBe("loopback");
    expect(reason("https://[::ffff:10.0.0.1]/mcp")).toBe("private");
    expect(reason("https://169.254.169.254/latest")).toBe("cloud_metadata");
    expect(reason("https://metadata.google.internal/")).toBe("internal_name");
    expect(reason("https://localhost./mcp")).toBe("loopback");
  });

  it("refuses plain http and credentials in the URL", () => {
    expect(reason("http://mcp.example.com/mcp")).toBe("https_required");
    expect(reason("https://user:pw@mcp.example.com/mcp")).toBe("credentials_in_url");
  });

  it("lets an exact allow-listed host:port through, plain http included (test stacks only)", () => {
    const allow = egressPolicyFrom({ EGRESS_ALLOW: "127.0.0.1:8791" });
    expect(reason("http://127.0.0.1:8791/mcp", allow)).toBe("ok");
    expect(reason("http://127.0.0.1:8792/mcp", allow)).toBe("https_required");
  });
});
