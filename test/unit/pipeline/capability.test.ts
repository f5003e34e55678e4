import { describe, expect, it } from "vitest";
import type { ToolManifestEntry } from "../../../providers/sdk/protocol.ts";
import type { Caller, Trust } from "../../../src/contract.ts";
import { RuntimeError } from "../../../src/errors.ts";
import {
  checkToolCapability,
  coveringGrant,
  reachableOfferings,
  resolveRequiredCapability,
} from "../../../src/pipeline/capability.ts";
import type { Offering } from "../../../src/registry/catalog.ts";

function offering(provider: string, trust: Trust = "verified", seq = 0): Offering {
  return {
    provider,
    binding: provider,
    trust,
    seq,
    manifest: { name: "t" } as ToolManifestEntry,
    input_hash: "i",
    output_hash: "o",
  };
}

function caller(overrides: Partial<Caller> = {}): Caller {
  return { tenant: `tenant-${crypto.randomUUID()}`, agent: "agent", capabilities: [], channels: ["*"], ...overrides };
}

/** Runs `fn` and returns the RuntimeError it throws (fails the test when it does not throw one). */
function thrown(fn: () => unknown): RuntimeError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RuntimeError);
    return err as RuntimeError;
  }
  throw new Error("expected a RuntimeError, nothing was thrown");
}

describe("coveringGrant", () => {
  it("covers a requirement with an equal grant", () => {
    expect(coveringGrant(["fs:read", "network:api.example.com"], "network:api.example.com")).toBe(
      "network:api.example.com",
    );
  });

  it("covers any scope of a kind with kind:*", () => {
    expect(coveringGrant(["network:*"], "network:api.example.com")).toBe("network:*");
  });

  it("covers everything with a bare *", () => {
    expect(coveringGrant(["*"], "network:api.example.com")).toBe("*");
    expect(coveringGrant(["*"], "network:*")).toBe("*");
    expect(coveringGrant(["*"], "fs:read")).toBe("*");
  });

  it("covers a subdomain with a *.suffix wildcard", () => {
    expect(coveringGrant(["network:*.example.com"], "network:api.example.com")).toBe("network:*.example.com");
    expect(coveringGrant(["network:*.example.com"], "network:a.b.example.com")).toBe("network:*.example.com");
  });

  it("does not cover the bare domain with a *.suffix wildcard", () => {
    expect(coveringGrant(["network:*.example.com"], "network:example.com")).toBeUndefined();
  });

  it("does not cover a host that merely ends in the same letters", () => {
    expect(coveringGrant(["network:*.example.com"], "network:evilexample.com")).toBeUndefined();
  });

  it("covers a network:* requirement only with network:* or *", () => {
    expect(coveringGrant(["network:*.example.com", "network:api.example.com"], "network:*")).toBeUndefined();
    expect(coveringGrant(["network:*"], "network:*")).toBe("network:*");
    expect(coveringGrant(["*"], "network:*")).toBe("*");
  });

  it("does not let a grant of one kind cover another kind", () => {
    expect(coveringGrant(["fs:*"], "network:api.example.com")).toBeUndefined();
    expect(coveringGrant(["fs:api.example.com"], "network:api.example.com")).toBeUndefined();
  });

  it("returns undefined when nothing is held", () => {
    expect(coveringGrant([], "network:api.example.com")).toBeUndefined();
  });

  it("returns the first grant that covers", () => {
    expect(coveringGrant(["network:*", "*"], "network:x.io")).toBe("network:*");
  });
});

describe("resolveRequiredCapability", () => {
  it("fills {url.host} with the host of the input URL, lowercased", () => {
    expect(resolveRequiredCapability("network:{url.host}", { url: "https://API.Example.COM/orders/123?x=1" })).toBe(
      "network:api.example.com",
    );
  });

  it("uses the host without the port", () => {
    expect(resolveRequiredCapability("network:{url.host}", { url: "http://api.example.com:8443/" })).toBe(
      "network:api.example.com",
    );
  });

  it("asks for network:* when the field is missing", () => {
    expect(resolveRequiredCapability("network:{url.host}", { method: "GET" })).toBe("network:*");
  });

  it("asks for network:* when the field is not a URL", () => {
    expect(resolveRequiredCapability("network:{url.host}", { url: "not a url" })).toBe("network:*");
  });

  it("asks for network:* when the field is not a string", () => {
    expect(resolveRequiredCapability("network:{url.host}", { url: 42 })).toBe("network:*");
  });

  it("asks for network:* when the URL has no host", () => {
    expect(resolveRequiredCapability("network:{url.host}", { url: "mailto:someone@example.com" })).toBe("network:*");
  });

  it("asks for network:* when the input is not an object", () => {
    expect(resolveRequiredCapability("network:{url.host}", "https://api.example.com")).toBe("network:*");
    expect(resolveRequiredCapability("network:{url.host}", null)).toBe("network:*");
  });

  it("reads the field the template names", () => {
    expect(
      resolveRequiredCapability("network:{endpoint.host}", {
        endpoint: "https://hooks.example.org/x",
        url: "https://other.example",
      }),
    ).toBe("network:hooks.example.org");
  });

  it("returns a template without placeholders as it is", () => {
    expect(resolveRequiredCapability("fs:read", { url: "https://x.example" })).toBe("fs:read");
  });

  it("returns null for a tool that requires nothing", () => {
    expect(resolveRequiredCapability(null, { url: "https://api.example.com" })).toBeNull();
  });
});

describe("reachableOfferings (docs/contract.md#capabilities level 1)", () => {
  const offerings = [offering("std", "system"), offering("community", "community"), offering("lab", "verified")];

  it("keeps every offering for a caller with the * channel", () => {
    expect(reachableOfferings(caller(), offerings).map((o) => o.provider)).toEqual(["std", "community", "lab"]);
  });

  it("keeps only the offerings whose provider the caller's channels name", () => {
    const reached = reachableOfferings(caller({ channels: ["lab", "std"] }), offerings);
    expect(reached.map((o) => o.provider)).toEqual(["std", "lab"]);
  });

  it("refuses an explicit provider outside the caller's channels with forbidden at level 1", () => {
    const err = thrown(() => reachableOfferings(caller({ channels: ["std"] }), offerings, "lab"));
    expect(err.code).toBe("forbidden");
    expect(err.status).toBe(403);
    expect(err.details).toMatchObject({ level: 1, provider: "lab" });
  });

  it("accepts an explicit provider inside the caller's channels", () => {
    const reached = reachableOfferings(caller({ channels: ["lab"] }), offerings, "lab");
    expect(reached.map((o) => o.provider)).toEqual(["lab"]);
  });

  it("refuses with forbidden at level 1 when no provider is reachable", () => {
    const err = thrown(() => reachableOfferings(caller({ channels: ["elsewhere"] }), offerings));
    expect(err.code).toBe("forbidden");
    expect(err.details).toMatchObject({ level: 1, providers: ["std", "community", "lab"] });
  });

  it("refuses a caller with no channels at all", () => {
    expect(thrown(() => reachableOfferings(caller({ channels: [] }), offerings)).code).toBe("forbidden");
  });
});

describe("checkToolCapability (docs/contract.md#capabilities level 3)", () => {
  it("passes a tool that requires nothing without any grant", () => {
    expect(checkToolCapability(caller({ capabilities: [] }), null, {})).toEqual({ required: null, granted_by: null });
  });

  it("passes and names the grant that covered the resolved requirement", () => {
    const decision = checkToolCapability(
      caller({ capabilities: ["fs:read", "network:*.example.com"] }),
      "network:{url.host}",
      {
        url: "https://api.example.com/v1",
      },
    );
    expect(decision).toEqual({ required: "network:api.example.com", granted_by: "network:*.example.com" });
  });

  it("refuses a caller whose grants do not cover the host with forbidden at level 3", () => {
    const err = thrown(() =>
      checkToolCapability(caller({ capabilities: ["network:*.example.com"] }), "network:{url.host}", {
        url: "https://evilexample.com/",
      }),
    );
    expect(err.code).toBe("forbidden");
    expect(err.details).toMatchObject({ level: 3, required: "network:evilexample.com" });
  });

  it("requires the widest grant when the input gives no host", () => {
    const narrow = caller({ capabilities: ["network:api.example.com", "network:*.example.com"] });
    expect(thrown(() => checkToolCapability(narrow, "network:{url.host}", { url: "nope" })).details).toMatchObject({
      level: 3,
      required: "network:*",
    });
    expect(checkToolCapability(caller({ capabilities: ["network:*"] }), "network:{url.host}", {})).toEqual({
      required: "network:*",
      granted_by: "network:*",
    });
  });
});
