/** Semver 2.0.0 ordering, enough to pick the active version of a tool (docs/contract.md#resolution). */

interface Parsed {
  core: [number, number, number];
  pre: string[];
}

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

export function parseSemver(version: string): Parsed | null {
  const m = SEMVER.exec(version);
  if (!m) return null;
  return { core: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ? m[4].split(".") : [] };
}

/** Negative when a < b, positive when a > b, 0 when equal in precedence. */
export function compareSemver(a: string, b: string): number {
  const pa = parseSemver(a);
  const pb = parseSemver(b);
  if (!pa || !pb) return a < b ? -1 : a > b ? 1 : 0;
  for (let i = 0; i < 3; i++) if (pa.core[i] !== pb.core[i]) return pa.core[i] - pb.core[i];
  // A version without prerelease outranks the same version with one.
  if (pa.pre.length === 0 || pb.pre.length === 0) return pb.pre.length - pa.pre.length;
  for (let i = 0; i < Math.min(pa.pre.length, pb.pre.length); i++) {
    const x = pa.pre[i];
    const y = pb.pre[i];
    if (x === y) continue;
    const xn = /^\d+$/.test(x);
    const yn = /^\d+$/.test(y);
    if (xn && yn) return Number(x) - Number(y);
    if (xn !== yn) return xn ? -1 : 1; // numeric identifiers have lower precedence
    return x < y ? -1 : 1;
  }
  return pa.pre.length - pb.pre.length;
}

/** The version a call without `version` gets: the highest release, else the highest prerelease. */
export function activeVersion(versions: string[]): string | undefined {
  const sorted = [...versions].sort(compareSemver).reverse();
  return sorted.find((v) => parseSemver(v)?.pre.length === 0) ?? sorted[0];
}
