/**
 * A small real HTTP client for the e2e suite (plain fetch against the running stack; every
 * response is checked against the OpenAPI document by conformance.ts).
 */
import { readFileSync } from "node:fs";
import { provided } from "./stack.ts";

export const baseUrl = provided("baseUrl");

/** Local development's well-known keys, from the same .dev.vars that wrangler dev reads. */
export const devVars = Object.fromEntries(
  readFileSync(new URL("../../.dev.vars", import.meta.url), "utf8")
    .split("\n")
    .filter((l) => /^[A-Z_]+=/.test(l))
    .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
);
export const ADMIN_KEY: string = devVars.DEV_ADMIN_KEY;
export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
/** The example caller's GET /call needs its CALLER_TOKEN (examples/caller/.dev.vars, which its wrangler dev reads). */
export const CALLER_AUTH = bearer(
  /^CALLER_TOKEN=(.*)$/m.exec(readFileSync(new URL("../../examples/caller/.dev.vars", import.meta.url), "utf8"))![1],
);

/**
 * This test file's own tenant and key (no two files share a tenant's buckets, slots,
 * keys or executions), minted through the admin API when the file loads, with what local
 * development's well-known key holds (DEV_CALLER in .dev.vars): every capability, every
 * channel, the dev-agent profile.
 */
export const FILE_TENANT = `e2e-${crypto.randomUUID().slice(0, 13)}`;
export const DEV_KEY: string = await (async () => {
  const res = await fetch(`${baseUrl}/v1/admin/keys`, {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer(ADMIN_KEY) },
    body: JSON.stringify({ tenant: FILE_TENANT, agent: "dev-agent", capabilities: ["network:*"], channels: ["*"] }),
  });
  if (res.status !== 201) throw new Error(`could not mint this file's key: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
})();

/**
 * A budget none of the suite's calls needs in full. An instant tool's own default (100 ms,
 * src/pipeline/budget.ts) is shorter than the runtime's overhead on a loaded machine, where the
 * call would be shed as `overloaded`; a test whose subject is not the budget must not depend
 * on how busy the machine is. Tests about budgets set their own.
 */
export const ROOMY = { timeout_ms: 20_000 };

/** `body` with ROOMY limits unless it sets its own. */
export function roomy(body: unknown): unknown {
  if (body === null || typeof body !== "object" || Array.isArray(body) || "limits" in body) return body;
  return { ...body, limits: ROOMY };
}

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export async function call<T = any>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  const init: RequestInit = { method, headers: { ...bearer(DEV_KEY), ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  }
  const res = await fetch(`${baseUrl}${path}`, init);
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : undefined;
  return { status: res.status, headers: res.headers, body: parsed };
}

/** POST /v1/executions with this file's key (and ROOMY limits unless the body sets its own). */
export const execute = <T = any>(body: unknown) => call<T>("POST", "/v1/executions", roomy(body));

/** The same, as the operator (admin role). */
export const asAdmin = <T = any>(method: string, path: string, body?: unknown) =>
  call<T>(method, path, body, bearer(ADMIN_KEY));

/**
 * An execution view without what lands after the call, so two reads may differ only there:
 * level 2's background verdict for a read-only tool (docs/contract.md#capabilities), and the provider Workers'
 * CPU reports (docs/contract.md#response resources, attempts[].cpu_ms).
 */
export const sansLate = (view: any) => ({
  ...view,
  capability: { ...view.capability, level2: undefined },
  ...(view.attempts ? { attempts: view.attempts.map((a: any) => ({ ...a, cpu_ms: undefined })) } : {}),
  execution: { ...view.execution, resources: undefined },
});

/** The earlier name of `sansLate`, kept so that tests written against it still compare what they meant to. */
export const sansIntent = sansLate;
