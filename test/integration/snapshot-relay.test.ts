/**
 * The runtime Worker in workerd refills its registry snapshot through its data center's relay
 * (docs/scale.md 9.1): the data center comes from the request's `cf.colo`, and the relay
 * `registry@<colo>` is what reads the registry. The proof: after the Worker's refill, a change
 * made at the registry itself (which no isolate offers to the relay) is not what the relay
 * answers within its TTL — it answers the copy it read for the Worker.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import worker from "../../src/index.ts";
import { CACHE_NAME, forgetSnapshot, SNAPSHOT_URL } from "../../src/registry/snapshot-cache.ts";

const auth = { authorization: `Bearer ${env.DEV_API_KEY}` };
const registry = () => env.REGISTRY.get(env.REGISTRY.idFromName("registry"));

async function listTools(colo: string | undefined): Promise<number> {
  const ctx = createExecutionContext();
  const request = new Request("http://localhost/v1/tools", { headers: auth, ...(colo ? { cf: { colo } } : {}) });
  const res = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, env, ctx);
  await res.arrayBuffer();
  await waitOnExecutionContext(ctx);
  return res.status;
}

/** No copy in this isolate and none in the data center's cache: the next call refills. */
async function coldDataCenter(): Promise<void> {
  forgetSnapshot();
  await (await caches.open(CACHE_NAME)).delete(SNAPSHOT_URL);
}

afterEach(async () => {
  await registry().setProvider("lab", { trust: "community" });
});

describe("the data center's snapshot relay, under the runtime Worker", () => {
  it("is what the Worker's refill reads: it answers the copy it read then, not a change made at the registry since", async () => {
    const colo = `T${crypto.randomUUID().slice(0, 8)}`;
    await coldDataCenter();
    expect(await listTools(colo)).toBe(200);
    const changed = await registry().setProvider("lab", { trust: "verified" });
    const relayed = await env.SNAPSHOT_RELAY.get(env.SNAPSHOT_RELAY.idFromName(`registry@${colo}`)).snapshot();
    expect(relayed.snapshot.version).toBeLessThan(changed!.version);
    expect(relayed.snapshot.providers.find((p) => p.name === "lab")?.trust).toBe("community");
  });

  it("is asked afresh by a data center it has not served (its first read is the registry's current state)", async () => {
    // The control for the test above: a relay nobody has asked reads the registry when first asked.
    const colo = `U${crypto.randomUUID().slice(0, 8)}`;
    const changed = await registry().setProvider("lab", { trust: "verified" });
    const relayed = await env.SNAPSHOT_RELAY.get(env.SNAPSHOT_RELAY.idFromName(`registry@${colo}`)).snapshot();
    expect(relayed.snapshot.version).toBeGreaterThanOrEqual(changed!.version);
    expect(relayed.snapshot.providers.find((p) => p.name === "lab")?.trust).toBe("verified");
  });
});
