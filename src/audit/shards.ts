/**
 * The audit store over N D1 databases, by tenant (docs/scale.md#audit): shard 0 is the binding
 * `AUDIT_DB`, shards 1..N-1 are `AUDIT_DB_1` … `AUDIT_DB_{N-1}` (`npm run audit-shards` writes
 * them into wrangler.jsonc; N is how many there are, from 0 without a gap). A tenant's records,
 * views, CPU reports, verdicts and archive outbox live in its shard, so every read of one tenant
 * asks one database; reads across tenants (an operator's `GET /v1/audit`, `/metrics`) ask every
 * shard and merge. What belongs to no tenant — refusal and verifier counts, dead-letter counts,
 * the operators' drills — lives in shard 0, the home shard.
 *
 * A tenant's shard is a jump consistent hash of its name's FNV-1a hash: going from N to N+1
 * shards moves 1/(N+1) of the tenants, none between the old shards. Records of a moved tenant
 * written before stay in its old shard until they expire (resharding is not built).
 */

/** The shards' bindings, shard 0 first: AUDIT_DB, then AUDIT_DB_1, … while bound. */
export function auditShards(env: Env): D1Database[] {
  const bound = (name: string): D1Database | undefined => Reflect.get(env, name);
  let shards = known.get(env);
  if (shards) return shards;
  shards = [];
  if (env.AUDIT_DB) {
    shards.push(env.AUDIT_DB);
    for (let db = bound("AUDIT_DB_1"); db; db = bound(`AUDIT_DB_${shards.length}`)) shards.push(db);
  }
  known.set(env, shards);
  return shards;
}

const known = new WeakMap<Env, D1Database[]>();

/** Where what belongs to no tenant is kept: shard 0. */
export function homeShard(env: Env): D1Database {
  return env.AUDIT_DB;
}

/** The database of a tenant's audit records. */
export function tenantShard(env: Env, tenant: string): D1Database {
  const shards = auditShards(env);
  return shards[shardIndex(tenantHash(tenant), shards.length)] ?? env.AUDIT_DB;
}

/** A tenant's 32-bit FNV-1a hash (of its name's UTF-8), as 8 hex digits: what names its shard whatever N is. */
export function tenantHash(tenant: string): string {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(tenant)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

/** The shard (0..n-1) of a tenant hash: Lamping and Veach's jump consistent hash. */
export function shardIndex(hash: string, n: number): number {
  if (n <= 1) return 0;
  let key = BigInt(`0x${hash}`);
  let b = -1;
  let j = 0;
  while (j < n) {
    b = j;
    key = (key * 2862933555777941757n + 1n) & 0xffffffffffffffffn;
    j = Math.floor(((b + 1) * 2 ** 31) / (Number(key >> 33n) + 1));
  }
  return b;
}

/**
 * Pages read from every shard, merged: the first `limit` items of all of them in the order each
 * shard gave (newest first: `t` descending, then `id` descending), as one database's page would
 * hold them. Each shard was asked for `limit + 1` items after the same cursor, so the merged page
 * has a next page exactly when some shard had more than the items taken from it.
 */
export function mergePages<T>(
  pages: readonly T[][],
  limit: number,
  key: (item: T) => { t: number; id: string },
): { items: T[]; more: boolean } {
  const all = pages.flat();
  all.sort((a, b) => {
    const x = key(a);
    const y = key(b);
    return x.t !== y.t ? y.t - x.t : x.id < y.id ? 1 : x.id > y.id ? -1 : 0;
  });
  return { items: all.slice(0, limit), more: all.length > limit };
}
