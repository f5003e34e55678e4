/**
 * The example intent verifier (docs/contract.md#capabilities level 2): a Worker the runtime reaches over a
 * service binding (INTENT_VERIFIER). Its policy is profiles.json, or an AGENT_PROFILES var.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { judgeIntent, parseProfiles, type Profiles } from "./policy.ts";
import type { IntentRequest, IntentVerdict } from "./protocol.ts";
import defaultProfiles from "../profiles.json";

interface VerifierEnv {
  AGENT_PROFILES?: unknown;
}

let profiles: Profiles | undefined;

export default class IntentVerifier extends WorkerEntrypoint<VerifierEnv> {
  async verify(request: IntentRequest): Promise<IntentVerdict> {
    profiles ??= parseProfiles(this.env.AGENT_PROFILES ?? defaultProfiles);
    const verdict = judgeIntent(request, profiles);
    console.log(
      JSON.stringify({
        msg: "intent verdict",
        tenant: request.tenant,
        agent: request.agent,
        tool: request.tool,
        ...verdict,
      }),
    );
    return verdict;
  }

  async fetch(): Promise<Response> {
    return Response.json({ profiles: parseProfiles(this.env.AGENT_PROFILES ?? defaultProfiles) });
  }
}
