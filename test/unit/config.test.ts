import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../src/config.ts";

const base = { PROVIDERS: [{ name: "std", binding: "PROVIDER_STD", trust: "system" }] } as unknown as Env;

describe("configuration, checked when it is loaded", () => {
  it("refuses an idempotency TTL longer than the retention window: a key would outlive its execution (docs/contract.md#idempotency)", () => {
    const env = {
      ...base,
      EXECUTION_RETENTION_MS: 60_000,
      TENANT_LIMITS: { default: { idempotency_ttl_ms: 60_000 }, tenants: { acme: { idempotency_ttl_ms: 120_000 } } },
    } as unknown as Env;
    expect(() => parseConfig(env)).toThrow(ConfigError);
    expect(() => parseConfig(env)).toThrow(
      /acme: idempotency_ttl_ms \(120000\) is longer than EXECUTION_RETENTION_MS \(60000\)/,
    );
  });

  it("takes a TTL up to the retention window", () => {
    const env = {
      ...base,
      EXECUTION_RETENTION_MS: 60_000,
      TENANT_LIMITS: { default: { idempotency_ttl_ms: 60_000 } },
    } as unknown as Env;
    expect(parseConfig(env).limits.default.idempotency_ttl_ms).toBe(60_000);
  });
});
