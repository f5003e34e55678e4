/**
 * One realistic example per operation of the OpenAPI document (src/openapi/document.ts): its
 * request body and its main success answer, by operationId (the `examples-*.ts` files beside
 * this one, by route group). `withExamples` puts each on the operation's JSON media type (or
 * its only one), so the reference page (/docs) and generated clients show real values;
 * test/unit/openapi-examples.test.ts holds every example to its schema.
 */
import type { Example, OperationExamples } from "./examples-shared.ts";
import { executionExamples } from "./examples-executions.ts";
import { toolExamples } from "./examples-tools.ts";
import { adminExamples } from "./examples-admin.ts";
import { upstreamExamples } from "./examples-upstreams.ts";
import { bundleExamples } from "./examples-bundles.ts";
import { oauthExamples } from "./examples-oauth.ts";

const OPERATION_EXAMPLES: Record<string, OperationExamples> = {
  ...executionExamples,
  ...toolExamples,
  ...adminExamples,
  ...upstreamExamples,
  ...bundleExamples,
  ...oauthExamples,
};

type Content = Record<string, Record<string, unknown>>;
interface OperationSlots {
  operationId?: string;
  requestBody?: { content?: Content };
  responses?: Record<string, { content?: Content }>;
}

/**
 * Puts each operation's examples on its media types: the JSON one when it has one (MessagePack
 * carries the same values), otherwise its only one (text/event-stream, text/plain). Returns
 * the same paths, changed in place.
 */
export function withExamples<P extends object>(paths: P): P {
  for (const item of Object.values(paths) as Record<string, unknown>[]) {
    for (const op of Object.values(item) as OperationSlots[]) {
      const examples = op && typeof op === "object" && op.operationId ? OPERATION_EXAMPLES[op.operationId] : undefined;
      if (!examples) continue;
      if (examples.request && op.requestBody?.content) put(op.requestBody.content, examples.request);
      for (const [status, example] of Object.entries(examples.responses)) {
        const content = op.responses?.[status]?.content;
        if (content) put(content, example);
      }
    }
  }
  return paths;
}

function put(content: Content, example: Example): void {
  const type = "application/json" in content ? "application/json" : Object.keys(content)[0];
  content[type] = {
    ...content[type],
    ...("value" in example ? { example: example.value } : { examples: example.named }),
  };
}
