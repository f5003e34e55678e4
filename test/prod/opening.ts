/**
 * The production-mode stack's first requests (test/prod/shipped.test.ts judges them): an operator
 * change, then a tool call, then a bootstrap with a wrong token, then the bootstrap. They are made
 * when the file loads, before any of its tests, because tests run in a random order and only the
 * first requests to a stack are first; not from the global setup, which may run while the unit files
 * rebuild what wrangler dev watches (a reload there ends a request under way: "terminated").
 * The stack is started by test/prod/global-setup.ts, in the background: this waits for it first.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { want } from "../boot-gate.ts";
import type { ProdStack } from "./global-setup.ts";

const READY_WITHIN_MS = 240_000;

export interface Answer {
  status: number;
  body: any;
}

/** The fresh stack's first requests, in order, and what each answered. */
export interface Opening {
  /** The stack's very first request: PATCH /v1/admin/providers/std {"max_concurrency": 4}. */
  operatorChange: Answer;
  /** Right after it: math.evaluate with the seeded tenant key. */
  toolCall: Answer;
  /** Then POST /v1/admin/bootstrap with a token that is not the stack's. */
  wrongToken: Answer;
  /** Then POST /v1/admin/bootstrap with BOOTSTRAP_TOKEN and {tenant, agent}. */
  bootstrap: Answer;
}

async function request(baseUrl: string, method: string, path: string, key: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON: kept as text */
  }
  return { status: res.status, body: parsed };
}

const log = (prod: ProdStack) =>
  existsSync(prod.stackLog) ? readFileSync(prod.stackLog, "utf8").slice(-20_000) : "(it printed nothing)";

async function ready(prod: ProdStack): Promise<void> {
  // Started as the unit files end (test/boot-gate.ts); asked for here when they did not run.
  want(dirname(prod.readyFile));
  const deadline = Date.now() + READY_WITHIN_MS;
  while (!existsSync(prod.readyFile)) {
    if (Date.now() > deadline)
      throw new Error(`the production-mode stack did not start within ${READY_WITHIN_MS} ms:\n${log(prod)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const { error } = JSON.parse(readFileSync(prod.readyFile, "utf8")) as { error?: string };
  if (error) throw new Error(`the production-mode stack could not start: ${error}`);
}

/** Waits for the stack, then makes its first requests; what each answered. */
export async function openStack(prod: ProdStack): Promise<Opening> {
  await ready(prod);
  const { baseUrl, operatorKey, tenantKey, bootstrapToken, bootstrapAs } = prod;
  // The operator change comes first of all: the bootstrap's claim lives in the registry object,
  // so a bootstrap first would wake the registry before the change reaches it.
  const operatorChange = await request(baseUrl, "PATCH", "/v1/admin/providers/std", operatorKey, {
    max_concurrency: 4,
  });
  const toolCall = await request(baseUrl, "POST", "/v1/executions", tenantKey, {
    tool: "math.evaluate",
    input: { expression: "6 * 7" },
    limits: { timeout_ms: 20_000 },
  });
  const wrongToken = await request(baseUrl, "POST", "/v1/admin/bootstrap", `${bootstrapToken}x`, bootstrapAs);
  const bootstrap = await request(baseUrl, "POST", "/v1/admin/bootstrap", bootstrapToken, bootstrapAs);
  // Back to the manifest's concurrency, as the stack came up; and the catalog re-read from the
  // providers, so that a registry the opening left wrong (what "a fresh stack" looks for) is
  // judged by that test alone, not again by every other.
  const restored = [
    await request(baseUrl, "PATCH", "/v1/admin/providers/std", operatorKey, { max_concurrency: null }),
    await request(baseUrl, "POST", "/v1/admin/registry/refresh", operatorKey),
  ];
  if (restored.some((r) => r.status !== 200))
    throw new Error(`could not restore the registry after the opening: ${JSON.stringify(restored)}\n${log(prod)}`);
  return { operatorChange, toolCall, wrongToken, bootstrap };
}
