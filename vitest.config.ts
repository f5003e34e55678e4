/**
 * Three test layers:
 *   unit         pure modules under Node
 *   integration  the Worker and its Durable Objects inside workerd (@cloudflare/vitest-plugin),
 *                with the provider Workers as auxiliary Workers
 *   e2e          the real `wrangler dev` stack that `npm start` runs, over real HTTP; the only
 *                layer with production's no-code-generation rule
 */
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { devConfig, writeDevConfig } from "./scripts/dev-config.ts";
import { BootGateReporter } from "./test/boot-gate.ts";
import LongFirstSequencer from "./test/sequencer.ts";

const provider = (name: string) => ({
  name: `tool-provider-${name}`,
  modules: true,
  scriptPath: `.build/providers/${name}/index.js`,
  compatibilityDate: "2026-10-01",
});

/**
 * Test files, and the tests in each, run in a random order (every file passes alone
 * and in any order). vitest prints the seed at the start ("Running tests with seed …");
 * `TEST_SEED=<seed> npm test` runs that order again.
 */
const seed = process.env.TEST_SEED ? Number(process.env.TEST_SEED) : Math.floor(Math.random() * 1_000_000);
const shuffled = { shuffle: { files: true, tests: true } };

/**
 * The projects run in three groups, one after another (vitest's `sequence.groupOrder`: lower
 * groups first, a group starts when the one before has ended): the unit files — the heavy
 * ones build every shipped Worker or run tsc — then the integration files in workerd, then
 * the files that talk to a wrangler dev: the e2e files against their stacks, the prod file
 * against its own, and the example upstream's files, each starting its own. Without it vitest
 * puts unit, integration and upstreams files in one group, run side by side (as many at once
 * as the machine has cores less one), and the e2e and prod files after them; so on a machine
 * with more than two cores unit builds, workerd files and the upstream's wrangler dev share
 * the cores. Inside a group the files run in the sequencer's order (test/sequencer.ts: the
 * seed's shuffle, the longest files first). Every project's globalSetup still runs before the
 * first file (vitest starts them all first, one after another); the e2e and prod stacks start
 * their processes only as the unit files end (test/boot-gate.ts, BootGateReporter below), so
 * their boot shares the cores with the integration files, which leave a third of them idle,
 * rather than with the unit files, which leave none.
 */
const order = { unit: 0, integration: 1, e2e: 2, prod: 2, upstreams: 2 };

/**
 * Stand-ins for the intent verifier that misbehave (test/integration/intent-verifier.test.ts):
 * real Workers reached over real service bindings, whose verify() throws or answers late.
 */
const misbehavingVerifier = (name: string, verify: string) => ({
  name,
  modules: true,
  compatibilityDate: "2026-10-01",
  script: `import { WorkerEntrypoint } from "cloudflare:workers";
export default class extends WorkerEntrypoint { async verify() { ${verify} } }`,
});

const root = dirname(fileURLToPath(import.meta.url));

/**
 * The dev config's module aliases (wrangler.dev-overlay.jsonc: the validators of the lab
 * providers too), for vite: the plugin bundles the Worker with vite, which does not read
 * wrangler's `alias`. wrangler resolves them from the project's root, so does this.
 */
const devAliases = Object.entries(devConfig(root).alias ?? {}).map(([find, path]) => ({
  find,
  replacement: join(root, path),
}));

/**
 * A handler that ignores every stop notice (test/fixtures/runaway-provider.js), for
 * test/integration/abandoned-call.test.ts: what workerd does with a provider call its caller
 * abandons. `enable_request_signal` lets its fetch handler see its request's abort.
 */
const runaway = {
  name: "test-runaway",
  modules: true,
  scriptPath: join(root, "test/fixtures/runaway-provider.js"),
  compatibilityDate: "2026-10-01",
  compatibilityFlags: ["enable_request_signal"],
  durableObjects: { PROGRESS: { className: "Progress", useSQLite: true } },
  serviceBindings: { SELF: "test-runaway" },
};

/**
 * MCP clients' website (test/fixtures/cimd-site.js), where the OAuth server fetches a client's
 * Client ID Metadata Document, and an OpenID Connect identity provider (test/fixtures/idp-site.js),
 * where a person on the consent page signs in: behind the runtime's outbound service
 * (test/fixtures/outbound.js), so its global fetch of `https://cimd-client.example/…` or
 * `https://idp.example/…` arrives at them over HTTP; other hosts pass through to the network.
 */
const cimdSite = {
  name: "test-cimd-site",
  modules: true,
  scriptPath: join(root, "test/fixtures/cimd-site.js"),
  compatibilityDate: "2026-10-01",
};
const idpSite = {
  name: "test-idp-site",
  modules: true,
  scriptPath: join(root, "test/fixtures/idp-site.js"),
  compatibilityDate: "2026-10-01",
};
const outbound = {
  name: "test-outbound",
  modules: true,
  scriptPath: join(root, "test/fixtures/outbound.js"),
  compatibilityDate: "2026-10-01",
  serviceBindings: { CIMD_SITE: cimdSite.name, IDP_SITE: idpSite.name },
};

/**
 * The audit database's migrations (migrations/), handed to the integration tests as a binding:
 * test/integration/apply-migrations.ts applies them before each file, as `npm start` applies
 * them before wrangler dev. TEST_PREMIGRATION_DB is a second, empty database that no setup
 * touches: it stands for one made before the schema became migrations, or never migrated
 * (test/integration/audit-upgrade.test.ts).
 */
const migrations = await readD1Migrations(join(root, "migrations"));

/** The example upstream MCP server, which development registers over the UPSTREAM_EXAMPLE binding (.dev.vars). */
const upstream = {
  name: "mcp-upstream-example",
  modules: true,
  scriptPath: ".build/examples/upstream-mcp/index.js",
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

/**
 * The integration project (the Worker in workerd), as two: most files share one Miniflare per
 * worker slot, one file after another (`isolate: false`): a Miniflare's start and the Worker's
 * first load cost each file ~2.5 s, more than most files' tests. Every file makes its own
 * tenants, keys, providers' names and bundles, and puts back what it changes. The files that
 * need what only a fresh one has — a registry never asked anything, a database no file wrote
 * to — are FRESH_INTEGRATION: each in a Miniflare of its own, as every file was before.
 */
const FRESH_INTEGRATION = ["test/integration/registry-cold-start.test.ts", "test/integration/audit-upgrade.test.ts"];

function integrationProject(name: string, include: string[], exclude: string[], isolate: boolean) {
  return {
    plugins: [
      cloudflareTest({
        // The runtime as `npm start` runs it: what ships plus the lab providers (wrangler.dev-overlay.jsonc).
        wrangler: { configPath: writeDevConfig(root) },
        miniflare: {
          workers: [
            ...["std", "community", "lab", "lab-twin", "lab-broken"].map(provider),
            verifier,
            upstream,
            runaway,
            cimdSite,
            idpSite,
            outbound,
            misbehavingVerifier("test-verifier-failing", 'throw new Error("the verifier broke");'),
            misbehavingVerifier(
              "test-verifier-slow",
              'await new Promise((r) => setTimeout(r, 10_000)); return { verdict: "misaligned", reason: "too late", profile: "slow" };',
            ),
          ],
          outboundService: outbound.name,
          serviceBindings: {
            TEST_VERIFIER_FAILING: "test-verifier-failing",
            TEST_VERIFIER_SLOW: "test-verifier-slow",
            TEST_RUNAWAY: "test-runaway",
            TEST_RUNAWAY_RELAY: { name: "test-runaway", entrypoint: "RelayCaller" },
          },
          // A call's health sample waits HEALTH_FLUSH_MS for its batch, and a test's request
          // (test/integration/worker-http.ts) waits for its background work: 5 s a call by default.
          bindings: { TEST_MIGRATIONS: migrations, HEALTH_FLUSH_MS: 20 },
          d1Databases: { TEST_PREMIGRATION_DB: "test-premigration-audit" },
        },
      }),
    ],
    resolve: { alias: devAliases },
    test: {
      name,
      include,
      exclude,
      // Two files at a time (the two projects share one group, so one value).
      maxWorkers: 2,
      isolate,
      setupFiles: ["test/integration/apply-migrations.ts"],
      // The first request to a Miniflare loads the whole Worker through vite's module runner
      // (seconds on 2 shared cores); the bound only keeps a hung test from running forever.
      testTimeout: 30_000,
      sequence: { ...shuffled, groupOrder: order.integration },
    },
  };
}

export default defineConfig({
  test: {
    // The seed's order, the longest files first (test/sequencer.ts).
    sequence: { ...shuffled, seed, sequencer: LongFirstSequencer },
    // The default reporter, and the gate that starts the stacks as the unit files end.
    reporters: ["default", new BootGateReporter()],
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          environment: "node",
          // Two files at a time even on 2 cores (vitest's default is cores less one): the unit
          // files run alone in their group, and half their time is waiting on a child process
          // (esbuild, tsc, wrangler's dry run). Measured: 160 s → 88 s for the group under load.
          maxWorkers: 2,
          // The bound only keeps a hung test from running forever: vitest's 5 s default is a
          // wall-clock threshold a CPU-heavy file (stream/fanout-bounds.test.ts) crossed on a loaded machine.
          testTimeout: 60_000,
          sequence: { ...shuffled, groupOrder: order.unit },
        },
      },
      integrationProject("integration", ["test/integration/**/*.test.ts"], FRESH_INTEGRATION, false),
      integrationProject("integration-fresh", FRESH_INTEGRATION, [], true),
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/e2e/global-setup.ts"],
          // Every response from the stack is held to the OpenAPI document it serves, and every
          // file must leave the shared registry as it found it.
          setupFiles: ["test/e2e/conformance.ts", "test/e2e/isolation.ts"],
          // A bound on a hung test only: waits for the audit queue (test/e2e/mcp.ts `expectNothingRan`) take up to 45 s.
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // The conformance scenarios run side by side (mcp-conformance.test.ts), three at once:
          // each starts a Node process, and the stack beside them is serving another file too.
          maxConcurrency: 3,
          // Three files at a time, each against a stack of its own (global-setup.ts starts one per
          // worker, each file claims a free one in stack.ts): what one file changes for every
          // file of its stack never reaches the file running beside it. Files wait on queues,
          // alarms and timers: with two at a time the cores were a quarter idle through this
          // group on a clean clone (vmstat), and a third cut it from 200 s to 168 s.
          maxWorkers: 3,
          sequence: { ...shuffled, groupOrder: order.e2e },
        },
      },
      // Load tests (`npm run test:load`, opt-in: TEST_LOAD=1): hundreds of calls at once against
      // the e2e stack. Not in `npm test`: they load a 2-core machine for seconds and leave the
      // stack's audit busy for whatever file runs next. Each has a sentinel that fails when the
      // load it names was not reached.
      ...(process.env.TEST_LOAD
        ? [
            {
              test: {
                name: "load",
                include: ["test/load/**/*.test.ts"],
                environment: "node",
                globalSetup: ["test/e2e/global-setup.ts"],
                setupFiles: ["test/e2e/conformance.ts", "test/e2e/isolation.ts"],
                testTimeout: 240_000,
                hookTimeout: 120_000,
                fileParallelism: false,
              },
            },
          ]
        : []),
      {
        // Production mode (`npm run start:prod`): what ships, with a deployment's secrets, in a
        // stack of its own (test/prod/global-setup.ts) that one file's tests share.
        test: {
          name: "prod",
          include: ["test/prod/**/*.test.ts"],
          environment: "node",
          globalSetup: ["test/prod/global-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 120_000,
          // In the e2e group (one value of maxWorkers per group): its one file takes a worker
          // while the other runs an e2e file, instead of a group of its own after them.
          maxWorkers: 3,
          sequence: { ...shuffled, groupOrder: order.prod },
        },
      },
      {
        // The example upstream MCP server (examples/upstream-mcp), alone under wrangler dev: each
        // file starts its own (scripts/upstream-dev.ts), so no stack is needed.
        test: {
          name: "upstreams",
          include: ["test/upstreams/**/*.test.ts"],
          environment: "node",
          testTimeout: 30_000,
          hookTimeout: 120_000,
          // Each file starts a wrangler dev of its own, on free ports with its own state: it
          // runs beside an e2e file, or beside the other upstreams file, in the e2e group.
          maxWorkers: 3,
          sequence: { ...shuffled, groupOrder: order.upstreams },
        },
      },
    ],
  },
});
