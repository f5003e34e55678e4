/**
 * The edge's copy of the registry snapshot, in four tiers (docs/scale.md section 9.1):
 *  1. this isolate's memory, fresh for REGISTRY_SNAPSHOT_TTL_MS;
 *  2. the data center's Cache API entry, fresh for the same TTL from the registry's answer and
 *     kept one TTL longer: the first isolate there to find it past its TTL claims the refill
 *     (it writes the entry back marked fresh for CLAIM_MS) and refills it, while every other
 *     isolate keeps taking the entry;
 *  3. the data center's relay object (src/registry/snapshot-relay.ts), which every refill asks:
 *     the Cache API has no compare-and-set, so isolates that find the entry stale in the same
 *     moment all refill it, and the relay turns them into one registry read per TTL;
 *  4. the registry object.
 * So the registry serves at most one read per data center per TTL, however many isolates run
 * there; a change reaches every isolate within two TTLs and a claim. A stale copy is still
 * served while one refresh runs in the background (stale-while-revalidate): no call waits on
 * the registry except while the isolate has no copy at all. An isolate that has not learnt
 * its data center (no request with `cf.colo` yet: Workers RPC callers only) reads the registry.
 *
 * On top of the copy: the health views this isolate has been answered since (its reports and
 * trial requests, src/registry/health-reporter.ts and health-client.ts), each kept until a
 * copy carries that provider's view at least as new. An isolate that saw a breaker open knows
 * it at once, without dropping its copy and re-reading the whole snapshot.
 */
import { loadConfig } from "../config.ts";
import type { RegistrySnapshot } from "./catalog.ts";
import { withPatches, type ProviderHealthView } from "./health-view.ts";
import { registryStub, relayStub } from "../object-stubs.ts";
import type { RelayedSnapshot } from "./snapshot-relay.ts";

/** The data center's entry, in a cache of the runtime's own. Versioned with the snapshot's shape, so two builds never read each other's. */
export const CACHE_NAME = "tool-runtime";
export const SNAPSHOT_URL = "https://registry.tool-runtime.internal/snapshot/v4";
/** How long a claimed refill keeps the other isolates of a data center off the registry: well past one registry round trip, well within a TTL. */
const CLAIM_MS = 2_000;
/** A patch the copies never caught up with (its shard could not reach the registry) is dropped after this long. */
const PATCH_MAX_AGE_MS = 60_000;

let base: { snapshot: RegistrySnapshot; fetchedAt: number } | undefined;
const patches = new Map<string, { view: ProviderHealthView; at: number }>();
let merged: RegistrySnapshot | undefined;
let refreshing = false;
/**
 * Bumped by forgetSnapshot (tests): a fetch begun before it is not adopted after it. Tests give
 * the Worker a fresh registry object, and a copy a background refresh brings back from the one
 * before would be taken while nothing newer is held.
 */
let generation = 0;
/** The data center this isolate runs in (`cf.colo` of a request it served), once known. */
let dataCenter: string | undefined;

/** The data center this isolate runs in, from a request's `cf.colo`: refills go to its relay from then on. */
export function noteDataCenter(colo: unknown): void {
  if (typeof colo === "string" && /^[A-Za-z0-9-]{1,16}$/.test(colo)) dataCenter = colo;
}

export async function getSnapshot(env: Env, waitUntil?: (p: Promise<unknown>) => void): Promise<RegistrySnapshot> {
  const ttl = loadConfig(env).snapshotTtlMs;
  if (base && Date.now() - base.fetchedAt < ttl) return current()!;
  if (base) {
    // One background refresh at a time; nobody waits for it (its I/O belongs to the request
    // that started it, which another request must not await).
    if (!refreshing) {
      refreshing = true;
      const p = refresh(env, ttl, waitUntil)
        .catch((err) => console.warn(JSON.stringify({ msg: "registry refresh failed", error: String(err) })))
        .finally(() => (refreshing = false));
      waitUntil?.(p);
    }
    return current()!;
  }
  // No copy yet: this request fetches its own rather than awaiting another request's call
  // (again if a test dropped the copies meanwhile, above).
  for (let tries = 0; !base && tries < 3; tries++) await refresh(env, ttl, waitUntil);
  return current()!;
}

/** The copy this isolate holds now, patches applied; undefined before the first fetch. No I/O. */
export function currentSnapshot(): RegistrySnapshot | undefined {
  return current();
}

/** A provider's health view, from an answer of its shard: this isolate's copy shows it at once. */
export function applyHealthPatch(view: ProviderHealthView): void {
  const held = patches.get(view.provider);
  if ((held && held.view.seq >= view.seq) || (base && (base.snapshot.health_seq?.[view.provider] ?? -1) >= view.seq))
    return;
  patches.set(view.provider, { view, at: Date.now() });
  merged = undefined;
}

/**
 * A snapshot the registry has just answered an operator's change with: this isolate takes it
 * at once and the data center's entry is replaced, so edges here see the change within one
 * refresh (others within two TTLs).
 */
export function publishSnapshot(env: Env, snapshot: RegistrySnapshot, waitUntil: (p: Promise<unknown>) => void): void {
  adopt(snapshot);
  waitUntil(writeDataCenterCopy(snapshot, Date.now(), loadConfig(env).snapshotTtlMs));
  if (dataCenter) {
    waitUntil(
      relayStub(env, dataCenter)
        .offer(snapshot)
        .catch((err) => console.warn(JSON.stringify({ msg: "snapshot relay offer failed", error: String(err) }))),
    );
  }
}

/** Drops this isolate's copy and patches (tests). */
export function forgetSnapshot(): void {
  generation++;
  base = undefined;
  patches.clear();
  merged = undefined;
}

async function refresh(env: Env, ttl: number, waitUntil?: (p: Promise<unknown>) => void): Promise<void> {
  const gen = generation;
  const shared = await readDataCenterCopy();
  if (gen !== generation) return;
  if (shared) {
    if (!base || shared.snapshot.version >= base.snapshot.version) adopt(shared.snapshot);
    // Else this isolate already holds something newer than the entry (an operator's change it
    // made): the entry is behind, not the copy.
    else base.fetchedAt = Date.now();
    if (Date.now() - shared.filledAt < ttl) return;
    // Past its TTL: this isolate refills it, while its calls go on with the entry it has just
    // taken (within two TTLs of the registry). The claim goes first, so that the isolates of
    // this data center refreshing during the registry's round trip take the entry, not the registry.
    const refill = writeDataCenterCopy(shared.snapshot, Date.now() - ttl + Math.min(CLAIM_MS, ttl / 2), ttl).then(() =>
      fill(env, ttl, waitUntil),
    );
    if (waitUntil) waitUntil(refill);
    else await refill;
    return;
  }
  await fill(env, ttl, waitUntil);
}

/**
 * Reads the data center's relay (or the registry, before the data center is known); this
 * isolate takes the answer, and the data center's entry is replaced with the newest copy this
 * isolate holds, fresh from when the registry answered it.
 */
async function fill(env: Env, ttl: number, waitUntil?: (p: Promise<unknown>) => void): Promise<void> {
  const gen = generation;
  const answer = await readRelayed(env);
  if (gen !== generation) return;
  adopt(answer.snapshot);
  const newest = base!.snapshot;
  const put = writeDataCenterCopy(newest, newest === answer.snapshot ? answer.fetched_at : Date.now(), ttl);
  if (waitUntil) waitUntil(put);
  else await put;
}

/** The data center's relay's copy; the registry's own when the data center is not known or its relay cannot answer. */
async function readRelayed(env: Env): Promise<RelayedSnapshot> {
  if (dataCenter) {
    try {
      return await relayStub(env, dataCenter).snapshot();
    } catch (err) {
      // A relay that fails must not fail a call the registry can serve.
      console.warn(
        JSON.stringify({
          msg: "snapshot relay unreachable: reading the registry",
          data_center: dataCenter,
          error: String(err),
        }),
      );
    }
  }
  return { snapshot: await registryStub(env).snapshot(), fetched_at: Date.now() };
}

function adopt(snapshot: RegistrySnapshot): void {
  // Never step back to an older version if two fetches cross.
  if (base && snapshot.version < base.snapshot.version) return;
  base = { snapshot, fetchedAt: Date.now() };
  for (const [provider, p] of patches)
    if ((snapshot.health_seq?.[provider] ?? -1) >= p.view.seq) patches.delete(provider);
  merged = undefined;
}

function current(): RegistrySnapshot | undefined {
  if (!base) return undefined;
  const now = Date.now();
  for (const [provider, p] of patches) {
    if (now - p.at > PATCH_MAX_AGE_MS) {
      patches.delete(provider);
      merged = undefined;
    }
  }
  merged ??= withPatches(base.snapshot, new Map([...patches].map(([k, p]) => [k, p.view])));
  return merged;
}

/** The Cache API is per data center and may be absent or inert (previews, some hostnames): then every isolate reads the registry, as before. */
/** The data center's entry: the snapshot, and when it was filled (or claimed) by the data center's clocks. */
interface DataCenterCopy {
  filledAt: number;
  snapshot: RegistrySnapshot;
}

async function readDataCenterCopy(): Promise<DataCenterCopy | undefined> {
  try {
    if (typeof caches === "undefined") return undefined;
    const res = await (await caches.open(CACHE_NAME)).match(SNAPSHOT_URL);
    return res ? ((await res.json()) as DataCenterCopy) : undefined;
  } catch (err) {
    console.warn(JSON.stringify({ msg: "snapshot cache read failed", error: String(err) }));
    return undefined;
  }
}

/** Fresh for `ttlMs` from `filledAt`, kept (max-age) one TTL longer for the refill. No entry for a TTL under a second. */
async function writeDataCenterCopy(snapshot: RegistrySnapshot, filledAt: number, ttlMs: number): Promise<void> {
  if (ttlMs < 1000 || typeof caches === "undefined") return;
  const maxAge = Math.max(1, Math.floor((filledAt + 2 * ttlMs - Date.now()) / 1000));
  const body: DataCenterCopy = { filledAt, snapshot };
  try {
    await (
      await caches.open(CACHE_NAME)
    ).put(
      SNAPSHOT_URL,
      new Response(JSON.stringify(body), {
        headers: { "content-type": "application/json", "cache-control": `max-age=${maxAge}` },
      }),
    );
  } catch (err) {
    console.warn(JSON.stringify({ msg: "snapshot cache write failed", error: String(err) }));
  }
}
