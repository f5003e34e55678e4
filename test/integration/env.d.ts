/// <reference path="../../node_modules/@cloudflare/vitest-plugin/types/cloudflare-test.d.ts" />
// `Env` and `Cloudflare.Env` come from worker-configuration.d.ts (`npm run types`).
