/// <reference path="../../node_modules/@cloudflare/vitest-plugin/types/cloudflare-test.d.ts" />
type RuntimeEnv = import("../../src/env.ts").Env;

declare namespace Cloudflare {
  interface Env extends RuntimeEnv {}
}

declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("../../src/index.ts");
  }
}
