declare module "cloudflare:test" {
  interface ProvidedEnv extends import("../../src/env.ts").Env {}
}
declare namespace Cloudflare {
  interface Env extends import("../../src/env.ts").Env {}
}
