/**
 * The std provider. Its egress settings (EGRESS_PORTS, EGRESS_ALLOW: tools/egress-policy.ts)
 * are read once, when the Worker loads, from its vars; a malformed one stops it loading.
 */
import { env } from "cloudflare:workers";
import { createProvider } from "../../sdk/provider.ts";
import { egressPolicyFrom } from "./tools/egress-policy.ts";
import { stdToolsWith } from "./tools/index.ts";

export default createProvider(
  "std",
  stdToolsWith(egressPolicyFrom(env as { EGRESS_PORTS?: unknown; EGRESS_ALLOW?: unknown })),
);
