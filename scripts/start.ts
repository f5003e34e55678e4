/**
 * `npm start`: the runtime stack (`npm run stack`: the runtime, its providers and the intent
 * verifier in one wrangler dev session, on 127.0.0.1:8787 unless told otherwise) and the
 * example caller Worker (examples/caller, on 127.0.0.1:8788), which reaches the runtime over
 * a service binding through wrangler's local dev registry. Extra arguments go to the stack's
 * wrangler dev. Ctrl-C stops both.
 */
import { spawn } from "node:child_process";

const children = [
  spawn("npm", ["run", "stack", "--", ...process.argv.slice(2)], { stdio: "inherit" }),
  spawn(
    "npx",
    [
      "wrangler",
      "dev",
      "-c",
      "examples/caller/wrangler.jsonc",
      "--ip",
      "127.0.0.1",
      "--port",
      process.env.CALLER_PORT ?? "8788",
      "--inspector-port",
      "0",
    ],
    {
      stdio: "inherit",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    },
  ),
];

let stopping = false;
const stop = (code: number) => {
  if (stopping) return;
  stopping = true;
  for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
  setTimeout(() => process.exit(code), 2_000).unref();
};
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => stop(0));
for (const c of children) c.once("exit", (code) => stop(code ?? 0));
