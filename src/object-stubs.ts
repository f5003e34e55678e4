/**
 * The address book of the Durable Objects: how each object is named, and one function per
 * namespace from what a caller knows (a tenant, a provider, an execution's object id) to a typed
 * stub of the object's class. Every module that talks to an object gets its stub here, so an
 * object's name is decided in one place and no two callers can address it differently.
 */

/** The one registry object's name; its health shards and data-center relays are named after it. */
export const REGISTRY_NAME = "registry";

/** A shard's name: `<registry>/<provider>` (a provider name has no slash). */
export function healthShardName(registry: string, provider: string): string {
  return `${registry}/${provider}`;
}

export function splitShardName(name: string): { registry: string | undefined; provider: string } {
  const slash = name.indexOf("/");
  return slash < 0
    ? { registry: undefined, provider: name }
    : { registry: name.slice(0, slash), provider: name.slice(slash + 1) };
}

/** A data center's relay is named after its registry and the data center (`registry@FRA`). */
export const relayName = (registry: string, dataCenter: string) => `${registry}@${dataCenter}`;

/** The registry a relay reads: its name up to the last `@`. */
export function registryOfRelay(name: string): string {
  const at = name.lastIndexOf("@");
  return at > 0 ? name.slice(0, at) : name;
}

/**
 * An execution's object, from the hex id its execution id carries; throws on an id this namespace
 * did not mint. Callers reach it through src/execution/ids.ts, which types it by the object's RPC
 * face (`ExecutionObjectRpc`), not by its class; typed here, this ground-floor file would import
 * from src/execution/.
 */
export function executionStub(env: Env, objectId: string) {
  return env.EXECUTIONS.get(env.EXECUTIONS.idFromString(objectId));
}

/** A tenant's object: admission, open streams, pending approvals. */
export function tenantStub(env: Env, tenant: string) {
  return env.TENANTS.get(env.TENANTS.idFromName(tenant));
}

/** The registry object; the one registry unless another is named (tests make registries of their own). */
export function registryStub(env: Env, registry: string = REGISTRY_NAME) {
  return env.REGISTRY.get(env.REGISTRY.idFromName(registry));
}

/** A data center's relay of the registry's snapshot. */
export function relayStub(env: Env, dataCenter: string, registry: string = REGISTRY_NAME) {
  return env.SNAPSHOT_RELAY.get(env.SNAPSHOT_RELAY.idFromName(relayName(registry, dataCenter)));
}

/** A provider's health shard of a registry (the one registry unless another is named). */
export function healthStub(env: Env, provider: string, registry: string = REGISTRY_NAME) {
  return env.HEALTH.get(env.HEALTH.idFromName(healthShardName(registry, provider)));
}

/** A provider's gate: its `max_concurrency` permits and the line waiting for them. */
export function gateStub(env: Env, provider: string) {
  return env.PROVIDER_GATES.get(env.PROVIDER_GATES.idFromName(provider));
}

/** One shard of the durable audit outbox (what the queue refused waits there). */
export function outboxStub(env: Env, shard: number) {
  return env.AUDIT_OUTBOX.get(env.AUDIT_OUTBOX.idFromName(`outbox-${shard}`));
}

/** A tenant's store of upstream tokens (one object per tenant). */
export function credentialStub(env: Env, tenant: string) {
  return env.UPSTREAM_CREDENTIALS.get(env.UPSTREAM_CREDENTIALS.idFromName(tenant));
}
