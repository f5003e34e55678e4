/// <reference path="../../node_modules/@cloudflare/vitest-plugin/types/cloudflare-test.d.ts" />
// `Env` and `Cloudflare.Env` come from worker-configuration.d.ts (`npm run types`).

/**
 * The integration tests run the dev config (scripts/dev-config.ts), where .dev.vars supplies
 * its well-known keys; `wrangler types` reads the shipped config, whose `secrets.required`
 * leaves .dev.vars out of `Env`.
 */
declare namespace Cloudflare {
  interface Env {
    DEV_API_KEY: string;
    DEV_ADMIN_KEY: string;
  }
}
