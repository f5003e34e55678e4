/**
 * Three test layers (DESIGN.md "Tests"):
 *   unit         pure modules under Node
 *   integration  the Worker and its Durable Objects inside workerd (@cloudflare/vitest-plugin),
 *                with the provider Workers as auxiliary Workers
 *   e2e          the real `wrangler dev` stack that `npm start` runs, over real HTTP; the only
 *                layer with production's no-code-generation rule
 */
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

const provider = (name: string) => ({
  name: `tool-provider-${name}`,
  modules: true,
  scriptPath: `.build/providers/${name}/index.js`,
  compatibilityDate: "2026-10-01",
});

/** The example upstream MCP server, which development registers over the UPSTREAM_EXAMPLE binding (.dev.vars). */
const upstream = {
  name: "mcp-upstream-example",
  modules: true,
  scriptPath: ".build/upstreams/example/index.js",
  compatibilityDate: "2026-10-01",
  compatibilityFlags: ["enable_request_signal"],
  durableObjects: { STATE: { className: "UpstreamState", useSQLite: true } },
};

const verifier = {
  name: "tool-intent-verifier",
  modules: true,
  scriptPath: ".build/verifiers/intent/index.js",
  compatibilityDate: "2026-10-01",
};

export default defineConfig({
  test: {
    projects: [
      {
        test: { name: "unit", include: ["test/unit/**/*.test.ts"], environment: "node" },
      },
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: { workers: [...["std", "community", "lab", "lab-twin", "lab-broken"].map(provider), verifier, upstream] },
          }),
        ],
        // The first request of a file loads the whole Worker through vite's module runner
        // (seconds on 2 shared cores); the bound only keeps a hung test from running forever.
        test: { name: "integration", include: ["test/integration/**/*.test.ts"], testTimeout: 30_000 },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/e2e/global-setup.ts"],
          // Every response from the stack is held to the OpenAPI document it serves.
          setupFiles: ["test/e2e/conformance.ts"],
          testTimeout: 30_000,
          hookTimeout: 120_000,
          // One shared stack; files run one after another so they do not crowd 2 cores.
          fileParallelism: false,
        },
      },
      {
        // The example upstream MCP server (upstreams/example), alone under wrangler dev: each
        // file starts its own (scripts/upstream-dev.ts), so no stack is needed.
        test: {
          name: "upstreams",
          include: ["test/upstreams/**/*.test.ts"],
          environment: "node",
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
