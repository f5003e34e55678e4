/**
 * The deployment's own secrets, checked with the rest of the configuration (src/config.ts):
 * a secret that is too weak, or one this repository has published, fails the first request
 * with a ConfigError that says how to set a proper one, instead of quietly protecting nothing.
 */
import { ConfigError } from "./config-error.ts";

/** The bootstrap token's least length: 32 characters of `openssl rand -base64 32` hold 192 bits. */
export const MIN_BOOTSTRAP_TOKEN_LENGTH = 32;

/**
 * Values of the upstream token key that this repository publishes or published (.dev.vars):
 * anyone can open what they seal, so they are for local development only.
 */
export const PUBLISHED_TOKEN_KEYS: readonly string[] = [
  "LocalDevelopmentOnly0NeverDeploy0ThisKey000=",
  "unuef2MnbGQ2ssWQFUrNYj4YF9RHl2f3fAv35P08Mvk=",
];

/** BOOTSTRAP_TOKEN (src/routes/bootstrap.ts): undefined when unset, else at least 32 characters. */
export function parseBootstrapToken(env: Env): string | undefined {
  const token = env.BOOTSTRAP_TOKEN;
  if (token === undefined || token === "") return undefined;
  if (typeof token !== "string" || token.length < MIN_BOOTSTRAP_TOKEN_LENGTH) {
    throw new ConfigError(
      `BOOTSTRAP_TOKEN must be at least ${MIN_BOOTSTRAP_TOKEN_LENGTH} characters: openssl rand -base64 32 | npx wrangler secret put BOOTSTRAP_TOKEN`,
    );
  }
  return token;
}

/** Outside local development, the upstream token key must not be one of the published ones. */
export function refusePublishedTokenKey(env: Env): void {
  if (env.LOCAL_DEVELOPMENT === "true") return;
  // The secret's name is configurable (src/upstreams/credentials.ts); UPSTREAM_TOKEN_KEY by default.
  const name =
    typeof env.UPSTREAM_TOKEN_KEY_SECRET === "string" && env.UPSTREAM_TOKEN_KEY_SECRET !== ""
      ? env.UPSTREAM_TOKEN_KEY_SECRET
      : "UPSTREAM_TOKEN_KEY";
  const value: unknown = Reflect.get(env, name);
  if (typeof value === "string" && PUBLISHED_TOKEN_KEYS.includes(value.trim())) {
    throw new ConfigError(
      `${name} holds the development key published in this repository's .dev.vars, so anyone can open the tokens it seals; ` +
        `set a fresh one: openssl rand -base64 32 | npx wrangler secret put ${name}`,
    );
  }
}
