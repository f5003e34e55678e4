/**
 * A provider that is misconfigured: its manifest answers, but every call fails before any
 * handler runs, the way a Worker with a missing secret or binding does. With trust "system"
 * it ranks first for lab.route, so its calls show the breaker at work (docs/contract.md#circuit-breakers): its own
 * code threw, so each call is a `provider_crashed` failure of a live provider (not a dead
 * one, docs/contract.md#circuit-breakers); three open lab.route's breaker and the next calls go to the others.
 */
import { createProvider } from "../../sdk/provider.ts";
import type { ExecutionSink, InvokeResult, ToolCall } from "../../sdk/protocol.ts";
import { labBrokenTools } from "./tools/index.ts";

const Provider = createProvider("lab-broken", labBrokenTools);

export default class BrokenProvider extends Provider {
  override async invoke(_call: ToolCall, _sink: ExecutionSink): Promise<InvokeResult> {
    throw new Error("lab-broken is misconfigured: its UPSTREAM binding is missing");
  }
}
