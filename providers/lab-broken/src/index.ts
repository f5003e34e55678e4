/**
 * A provider that is misconfigured: its manifest answers, but every call fails before any
 * handler runs, the way a Worker with a missing secret or binding does. With trust "system"
 * it ranks first for lab.route, so its first call shows liveness at work (AIOS §5.2): the
 * runtime marks it dead and the next calls go to the other providers.
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
