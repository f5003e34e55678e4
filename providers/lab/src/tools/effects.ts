/** Lab tools for the capability levels: declared effects and what a handler is handed. */
import { defineTool } from "../../../sdk/define.ts";

/**
 * `lab.write` and `lab.delete` change nothing: they exist for their declared effects, so that
 * level 2's synchronous verification of write and delete tools (docs/contract.md#capabilities) can be watched end
 * to end. Each answers with the record it was asked to change.
 */
function labEffect(effect: "write" | "delete", answer: "wrote" | "deleted") {
  return defineTool({
    name: `lab.${effect}`,
    version: "1.0.0",
    description: `Declares the effect "${effect}" and changes nothing; answers {${answer}: record}.`,
    input: {
      type: "object",
      additionalProperties: false,
      required: ["record"],
      properties: { record: { type: "string", maxLength: 200 } },
    },
    output: {
      type: "object",
      required: [answer],
      additionalProperties: false,
      properties: { [answer]: { type: "string" } },
    },
    idempotent: true,
    latency_class: "fast",
    effects: effect,
    handler: (input: { record: string }) => ({ [answer]: input.record }),
  });
}
export const labWrite = labEffect("write", "wrote");
export const labDelete = labEffect("delete", "deleted");

/**
 * `lab.context` answers with what the runtime handed the handler besides its input: the
 * execution id, the caller, the call's context and the W3C `traceparent` (README: providers
 * receive it as `ctx.traceparent`).
 */
export const labContext = defineTool({
  name: "lab.context",
  version: "1.0.0",
  description: "Answers with the handler's context: execution_id, caller, context and traceparent.",
  input: { type: "object", additionalProperties: false, properties: {} },
  output: {
    type: "object",
    required: ["execution_id", "caller", "context", "traceparent"],
    additionalProperties: false,
    properties: {
      execution_id: { type: "string" },
      caller: { type: "object" },
      context: { type: "object" },
      traceparent: { type: "string" },
    },
  },
  idempotent: true,
  latency_class: "fast",
  effects: "read",
  handler: (_input: Record<string, never>, ctx) => ({
    execution_id: ctx.executionId,
    caller: { ...ctx.caller },
    context: ctx.context,
    traceparent: ctx.traceparent ?? "",
  }),
});
