/**
 * Tenants' tokens for upstreams (issue 17, item 5) are sealed with AES-GCM, bound to their
 * tenant and upstream: a sealed token opens nowhere else, and not under another key.
 */
import { describe, expect, it } from "vitest";
import { checkToken, openToken, sealToken, tokenKey, type TokenKey } from "../../src/upstreams/credentials.ts";

const keyOf = (bytes: number[]) => tokenKey({ UPSTREAM_TOKEN_KEY: btoa(String.fromCharCode(...bytes)) } as unknown as Env) as Promise<TokenKey>;

describe("sealed tenant tokens", () => {
  it("opens in its own slot only", async () => {
    const key = await keyOf(Array.from({ length: 32 }, (_, i) => i));
    const sealed = await sealToken(key, "acme", "docs", "tok-123");
    expect(JSON.stringify(sealed)).not.toContain("tok-123");
    expect(await openToken(key, "acme", "docs", sealed)).toBe("tok-123");
    expect(await openToken(key, "globex", "docs", sealed)).toBeUndefined();
    expect(await openToken(key, "acme", "other", sealed)).toBeUndefined();
  });

  it("does not open under another key", async () => {
    const one = await keyOf(Array.from({ length: 32 }, (_, i) => i));
    const two = await keyOf(Array.from({ length: 32 }, (_, i) => 255 - i));
    const sealed = await sealToken(one, "acme", "docs", "tok-123");
    expect(await openToken(two, "acme", "docs", { ...sealed, key_id: two.id })).toBeUndefined();
    expect(await openToken(two, "acme", "docs", sealed)).toBeUndefined();
  });

  it("has no key unless one is configured, and refuses a malformed one", async () => {
    expect(await tokenKey({} as Env)).toBeUndefined();
    await expect(tokenKey({ UPSTREAM_TOKEN_KEY: btoa("short") } as unknown as Env)).rejects.toThrow(/32 bytes/);
    const named = await tokenKey({ UPSTREAM_TOKEN_KEY_SECRET: "MY_KEY", MY_KEY: btoa(String.fromCharCode(...new Array(32).fill(7))) } as unknown as Env);
    expect(named?.id).toMatch(/^[0-9a-f]{8}$/);
  });

  it("takes bearer tokens only", () => {
    expect(checkToken("abc.DEF-123_~+/==")).toBeUndefined();
    expect(checkToken("")).toBeDefined();
    expect(checkToken("two words")).toBeDefined();
    expect(checkToken("a\r\nX-Injected: 1")).toBeDefined();
    expect(checkToken(42)).toBeDefined();
  });
});
