/**
 * A small real HTTP client for the e2e suite (plain fetch against the running stack; every
 * response is checked against the OpenAPI document by conformance.ts).
 */
import { readFileSync } from "node:fs";
import { inject } from "vitest";

export const baseUrl = inject("baseUrl");

/** Local development's well-known keys, from the same .dev.vars that wrangler dev reads. */
const devVars = Object.fromEntries(
  readFileSync(new URL("../../.dev.vars", import.meta.url), "utf8")
    .split("\n")
    .filter((l) => /^[A-Z_]+=/.test(l))
    .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
);
export const DEV_KEY: string = devVars.DEV_API_KEY;
export const ADMIN_KEY: string = devVars.DEV_ADMIN_KEY;
export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export async function call<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer<T>> {
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

export const execute = <T = any>(body: unknown) => call<T>("POST", "/v1/executions", body);

/** The same, as the operator (admin role). */
export const asAdmin = <T = any>(method: string, path: string, body?: unknown) => call<T>(method, path, body, bearer(ADMIN_KEY));

/**
 * An execution view without what lands after the call, so two reads may differ only there:
 * level 2's background verdict for a read-only tool (AIOS §5.3), and the provider Workers'
 * CPU reports (TRT-002 §5 resources, attempts[].cpu_ms).
 */
export const sansLate = (view: any) => ({
  ...view,
  capability: { ...view.capability, level2: undefined },
  ...(view.attempts ? { attempts: view.attempts.map((a: any) => ({ ...a, cpu_ms: undefined })) } : {}),
  execution: { ...view.execution, resources: undefined },
});

/** The earlier name of `sansLate`, kept so that tests written against it still compare what they meant to. */
export const sansIntent = sansLate;
