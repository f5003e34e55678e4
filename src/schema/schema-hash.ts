/**
 * A schema's identity: SHA-256 of its canonical JSON (keys sorted). The build step names each
 * prebuilt validator by it, and the registry checks each live manifest's schemas against the
 * same names, so a provider whose schemas changed after the build is caught, not trusted.
 * Uses Web Crypto so Node (build) and workerd (run time) compute the same value.
 */
import { sha256Hex } from "./sha256.ts";

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value as object)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The first 128 bits of the schema's SHA-256, as hex. */
export async function schemaHash(schema: unknown): Promise<string> {
  return (await sha256Hex(canonicalJson(schema))).slice(0, 32);
}
