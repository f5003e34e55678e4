/** Secrets checked with the configuration (src/config-secrets.ts): a weak or published one fails loudly. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../src/config.ts";

const PROVIDERS = [{ name: "std", binding: "PROVIDER_STD", trust: "system" }];
const envOf = (vars: Record<string, unknown>): Env => Object.assign(Object.create(null), { PROVIDERS }, vars);
const committedKey = /^UPSTREAM_TOKEN_KEY=(.*)$/m.exec(
  readFileSync(new URL("../../.dev.vars", import.meta.url), "utf8"),
)![1];
const fresh = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));

describe("the upstream token key", () => {
  it("refuses the one .dev.vars commits unless LOCAL_DEVELOPMENT is true, naming the fix", () => {
    expect(() => parseConfig(envOf({ UPSTREAM_TOKEN_KEY: committedKey }))).toThrow(ConfigError);
    expect(() => parseConfig(envOf({ UPSTREAM_TOKEN_KEY: committedKey }))).toThrow(
      /openssl rand -base64 32 \| npx wrangler secret put UPSTREAM_TOKEN_KEY/,
    );
    expect(() => parseConfig(envOf({ UPSTREAM_TOKEN_KEY: committedKey, LOCAL_DEVELOPMENT: "1" }))).toThrow(ConfigError);
    expect(() => parseConfig(envOf({ UPSTREAM_TOKEN_KEY: committedKey, LOCAL_DEVELOPMENT: "true" }))).not.toThrow();
  });

  it("refuses it under another secret name too, and the value .dev.vars published before", () => {
    expect(() => parseConfig(envOf({ UPSTREAM_TOKEN_KEY_SECRET: "SEAL_KEY", SEAL_KEY: committedKey }))).toThrow(
      /SEAL_KEY holds the development key/,
    );
    expect(() => parseConfig(envOf({ UPSTREAM_TOKEN_KEY: "unuef2MnbGQ2ssWQFUrNYj4YF9RHl2f3fAv35P08Mvk=" }))).toThrow(
      ConfigError,
    );
  });

  it("accepts a fresh key, or none", () => {
    expect(() => parseConfig(envOf({ UPSTREAM_TOKEN_KEY: fresh }))).not.toThrow();
    expect(() => parseConfig(envOf({}))).not.toThrow();
  });
});

describe("BOOTSTRAP_TOKEN", () => {
  it("is absent when unset, and must be at least 32 characters when set", () => {
    expect(parseConfig(envOf({})).bootstrapToken).toBeUndefined();
    expect(parseConfig(envOf({ BOOTSTRAP_TOKEN: "x".repeat(32) })).bootstrapToken).toBe("x".repeat(32));
    expect(() => parseConfig(envOf({ BOOTSTRAP_TOKEN: "x".repeat(31) }))).toThrow(
      /BOOTSTRAP_TOKEN must be at least 32 characters/,
    );
  });
});
