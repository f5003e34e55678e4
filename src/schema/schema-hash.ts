/**
 * A schema's identity: SHA-256 of its canonical JSON (keys sorted). The build step names each
 * prebuilt validator by it, and the registry checks each live manifest's schemas against the
 * same names, so a provider whose schemas changed after the build is caught, not trusted.
 * Uses Web Crypto so Node (build) and workerd (run time) compute the same value.
 */
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

export async function schemaHash(schema: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(schema));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  let hex = "";
  for (const b of digest.subarray(0, 16)) hex += b.toString(16).padStart(2, "0");
  return hex;
}
