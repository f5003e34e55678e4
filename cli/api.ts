/**
 * A plain request to the runtime's admin API for the commands the typed client has no method
 * for (upstreams, the audit log's every filter). Refusals become ApiError with the error
 * envelope's `code` and the HTTP `status`, which is all exit-codes.ts and the output need.
 */
import type { Connection } from "./connection.ts";

export class ApiError extends Error {
  readonly code: string;
  /** The HTTP status; 0 when the runtime could not be reached. */
  readonly status: number;
  readonly details?: Record<string, unknown>;
  constructor(code: string, message: string, status: number, details?: Record<string, unknown>) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = status;
    this.details = details;
  }
}

export async function api<T>(conn: Connection, method: string, path: string, body?: unknown): Promise<T> {
  const base = conn.url.replace(/\/+$/, "");
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${conn.key}`,
        accept: "application/json",
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    throw new ApiError(
      "network_error",
      `could not reach the runtime at ${base} (${cause?.code ?? (err as Error).message})`,
      0,
    );
  }
  const text = await res.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    throw new ApiError(
      "bad_response",
      `the runtime answered HTTP ${res.status} with a body that is not JSON (is ${base} the runtime?)`,
      0,
    );
  }
  if (!res.ok)
    throw new ApiError(
      parsed?.error?.code ?? "internal",
      parsed?.error?.message ?? `HTTP ${res.status}`,
      res.status,
      parsed?.error?.details,
    );
  return parsed as T;
}
