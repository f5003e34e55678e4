/**
 * Real response bodies from the e2e run, kept for the generated-types check
 * (scripts/check-openapi-samples.ts): one body per documented response and shape.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const SAMPLES_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", ".build", "openapi", "samples");

export interface Sample {
  /** JSON pointer of the documented response (`#/paths/…/responses/200` or `#/components/responses/…`). */
  at: string;
  body: unknown;
}

/** The structure of a JSON value (keys and kinds, not values): bodies of one shape test the same types. */
export function shapeOf(value: unknown): string {
  if (Array.isArray(value)) return `[${[...new Set(value.map(shapeOf))].sort().join("|")}]`;
  if (value === null) return "null";
  if (typeof value === "object") {
    return `{${Object.keys(value as object)
      .sort()
      .map((k) => `${k}:${shapeOf((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return typeof value;
}
