/**
 * Tenants' tokens for upstreams are sealed with AES-GCM, bound to their tenant and to their
 * upstream's name and address: a sealed token opens nowhere else, not under another key, and
 * not for the same name registered again at another URL or binding.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkToken, openToken, sealToken, tokenKey, type TokenKey } from "../../../src/upstreams/credentials.ts";

const docs = { name: "docs", url: "https://docs.example.com/mcp" };
const keyOf = (bytes: number[]) =>
  tokenKey({ UPSTREAM_TOKEN_KEY: btoa(String.fromCharCode(...bytes)) } as unknown as Env) as Promise<TokenKey>;

describe("sealed tenant tokens", () => {
  it("opens in its own slot only", async () => {
    const key = await keyOf(Array.from({ length: 32 }, (_, i) => i));
    const sealed = await sealToken(key, "acme", docs, "tok-123");
    expect(JSON.stringify(sealed)).not.toContain("tok-123");
    expect(await openToken(key, "acme", docs, sealed)).toBe("tok-123");
    expect(await openToken(key, "globex", docs, sealed)).toBeUndefined();
    expect(await openToken(key, "acme", { ...docs, name: "other" }, sealed)).toBeUndefined();
  });

  it("is void for the same name registered again at another address, until stored again", async () => {
    const key = await keyOf(Array.from({ length: 32 }, (_, i) => i));
    const sealed = await sealToken(key, "acme", docs, "tok-123");
    expect(await openToken(key, "acme", { name: "docs", url: "https://evil.example.net/mcp" }, sealed)).toBeUndefined();
    expect(await openToken(key, "acme", { name: "docs", binding: "DOCS" }, sealed)).toBeUndefined();
    const bound = await sealToken(key, "acme", { name: "docs", binding: "DOCS" }, "tok-456");
    expect(await openToken(key, "acme", { name: "docs", binding: "DOCS" }, bound)).toBe("tok-456");
    expect(await openToken(key, "acme", { name: "docs", binding: "OTHER" }, bound)).toBeUndefined();
    // A binding and a URL never collide, whatever their text.
    expect(await openToken(key, "acme", { name: "docs", url: "DOCS" }, bound)).toBeUndefined();
  });

  it("does not open under another key", async () => {
    const one = await keyOf(Array.from({ length: 32 }, (_, i) => i));
    const two = await keyOf(Array.from({ length: 32 }, (_, i) => 255 - i));
    const sealed = await sealToken(one, "acme", docs, "tok-123");
    expect(await openToken(two, "acme", docs, { ...sealed, key_id: two.id })).toBeUndefined();
    expect(await openToken(two, "acme", docs, sealed)).toBeUndefined();
  });

  describe("opened once per isolate", () => {
    afterEach(() => vi.restoreAllMocks());

    it("decrypts a stored token once, and a token stored again is the new one", async () => {
      const key = await keyOf(Array.from({ length: 32 }, (_, i) => (i * 7) % 256));
      const tenant = `acme-${crypto.randomUUID()}`;
      const decrypt = vi.spyOn(crypto.subtle, "decrypt");
      const first = await sealToken(key, tenant, docs, "tok-first");
      expect(await openToken(key, tenant, docs, first)).toBe("tok-first");
      expect(await openToken(key, tenant, docs, first)).toBe("tok-first");
      expect(decrypt).toHaveBeenCalledTimes(1);
      // Stored again for the same slot: new sealed bytes, so the new token, never the one kept.
      const second = await sealToken(key, tenant, docs, "tok-second");
      expect(await openToken(key, tenant, docs, second)).toBe("tok-second");
      // Kept for its own slot only: another tenant or address does not open it.
      expect(await openToken(key, `${tenant}-other`, docs, second)).toBeUndefined();
      expect(
        await openToken(key, tenant, { name: "docs", url: "https://elsewhere.example.com/mcp" }, second),
      ).toBeUndefined();
    });

    it("keeps nothing across keys, even keys with the same short id", async () => {
      const one = await keyOf(Array.from({ length: 32 }, (_, i) => (i * 11) % 256));
      const two = await keyOf(Array.from({ length: 32 }, (_, i) => (i * 13) % 256));
      const tenant = `acme-${crypto.randomUUID()}`;
      const sealed = await sealToken(one, tenant, docs, "tok-123");
      expect(await openToken(one, tenant, docs, sealed)).toBe("tok-123");
      // The id is 32 bits of the key's digest: another key that shared it must still fail to open.
      expect(await openToken({ id: one.id, key: two.key }, tenant, docs, sealed)).toBeUndefined();
    });
  });

  it("has no key unless one is configured, and refuses a malformed one", async () => {
    expect(await tokenKey({} as Env)).toBeUndefined();
    await expect(tokenKey({ UPSTREAM_TOKEN_KEY: btoa("short") } as unknown as Env)).rejects.toThrow(/32 bytes/);
    const named = await tokenKey({
      UPSTREAM_TOKEN_KEY_SECRET: "MY_KEY",
      MY_KEY: btoa(String.fromCharCode(...new Array(32).fill(7))),
    } as unknown as Env);
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
