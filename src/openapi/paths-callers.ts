/**
 * The document's paths a caller uses (docs/contract.md#routes): invoke a tool and list, read,
 * stream and cancel executions; approve or reject a held call; read the registry's tools.
 */
import { ref } from "./schema-builders.ts";
import {
  body,
  executionHeaders,
  executionId,
  header,
  listFilters,
  ok,
  path,
  query,
  requestBody,
  sse,
  SSE_NOTE,
} from "./operation-parts.ts";
import { CALLER, errors, executionErrors } from "./error-responses.ts";

export const callerPaths = {
  "/v1/executions": {
    post: {
      operationId: "createExecution",
      tags: ["executions"],
      summary: "Invoke a tool (sync, async, dry run, or streamed)",
      requestBody: requestBody(ref("ExecutionRequest")),
      responses: {
        "200": {
          description: `sync: the finished execution; dry_run: the decision; \`stream: true\`: the event stream. ${SSE_NOTE}`,
          headers: executionHeaders,
          content: { ...body({ oneOf: [ref("ExecutionView"), ref("DryRun")] }), ...sse },
        },
        "202": ok("async: accepted", ref("Accepted"), { Location: header("Location"), ...executionHeaders }),
        ...executionErrors([
          ...CALLER,
          "invalid_request",
          "invalid_input",
          "forbidden",
          "tool_not_found",
          "tool_deprecated",
          "payload_too_large",
          "unsupported_media_type",
          "idempotency_conflict",
          "rate_limited",
          "no_healthy_provider",
        ]),
      },
    },
    get: {
      operationId: "listExecutions",
      tags: ["executions"],
      summary:
        "Executions the caller may see, newest first: its own (agent, approver), or its tenant's (tenant_admin, operator)",
      parameters: listFilters,
      responses: { "200": ok("a page", ref("ExecutionList")), ...errors([...CALLER, "invalid_request"]) },
    },
  },
  "/v1/executions/{id}": {
    get: {
      operationId: "getExecution",
      tags: ["executions"],
      summary: "Status, and the result once finished",
      parameters: [executionId],
      responses: { "200": ok("the execution", ref("ExecutionView")), ...errors([...CALLER, "execution_not_found"]) },
    },
  },
  "/v1/executions/{id}/stream": {
    get: {
      operationId: "streamExecution",
      tags: ["executions"],
      summary: "The execution's events (SSE), replayed from Last-Event-ID or ?after=",
      // The same words as docs/contract.md#streaming.
      description:
        "Every execution the caller can read can be streamed. A fast-path execution (a sync call that was not streamed and had no idempotency key) ran before anyone could watch it and kept none of its events: its stream is replayed from its record, `start` (seq 1) and its terminal event (seq 2; seq 1 when it ended before it ran), with the data `GET` answers.",
      parameters: [
        executionId,
        query("after", { type: "integer", minimum: 0 }, "Resume after this seq (Last-Event-ID wins)."),
        {
          name: "Last-Event-ID",
          in: "header",
          required: false,
          description: "Resume after this seq.",
          schema: { type: "integer", minimum: 0 },
        },
      ],
      responses: {
        "200": { description: `the event stream. ${SSE_NOTE}`, content: sse },
        "204": { description: "resumed at or past the terminal event: nothing more will come" },
        ...errors([...CALLER, "invalid_request", "execution_not_found", "rate_limited"]),
      },
    },
  },
  "/v1/executions/{id}/cancel": {
    post: {
      operationId: "cancelExecution",
      tags: ["executions"],
      summary: "Cancel",
      parameters: [executionId],
      // Like every body: JSON or MessagePack, anything else 415 (docs/contract.md#formats).
      requestBody: requestBody(ref("CancelRequest"), false),
      responses: {
        "200": ok("the execution, ended (or as it already was)", ref("ExecutionView")),
        ...errors([...CALLER, "invalid_request", "payload_too_large", "unsupported_media_type", "execution_not_found"]),
      },
    },
  },
  "/v1/executions/{id}/approve": {
    post: {
      operationId: "approveExecution",
      tags: ["approvals"],
      summary: "Approve a call that awaits approval (approver role): it goes on to run",
      parameters: [executionId],
      // Like every body: JSON or MessagePack, anything else 415 (docs/contract.md#formats).
      requestBody: requestBody(ref("ApprovalRequest"), false),
      responses: {
        "200": ok("the execution, now queued, scheduled or running", ref("ExecutionView")),
        ...errors([
          ...CALLER,
          "forbidden",
          "invalid_request",
          "payload_too_large",
          "unsupported_media_type",
          "execution_not_found",
          "approval_not_pending",
        ]),
      },
    },
  },
  "/v1/executions/{id}/reject": {
    post: {
      operationId: "rejectExecution",
      tags: ["approvals"],
      summary: "Reject a call that awaits approval (approver role; a reason is required): it ends failed, unrun",
      parameters: [executionId],
      // Like every body: JSON or MessagePack, anything else 415 (docs/contract.md#formats).
      requestBody: requestBody(ref("ApprovalRequest"), true),
      responses: {
        "200": ok("the execution, failed with approval_rejected", ref("ExecutionView")),
        ...errors([
          ...CALLER,
          "forbidden",
          "invalid_request",
          "payload_too_large",
          "unsupported_media_type",
          "execution_not_found",
          "approval_not_pending",
        ]),
      },
    },
  },
  "/v1/approvals": {
    get: {
      operationId: "listApprovals",
      tags: ["approvals"],
      summary: "The caller's tenant's calls waiting for a person's approval, oldest first (approver role)",
      responses: { "200": ok("the pending approvals", ref("ApprovalList")), ...errors([...CALLER, "forbidden"]) },
    },
  },
  "/v1/tools": {
    get: {
      operationId: "listTools",
      tags: ["tools"],
      summary: "Every tool",
      responses: { "200": ok("the registry's view", ref("ToolList")), ...errors(CALLER) },
    },
  },
  "/v1/tools/{name}": {
    get: {
      operationId: "getTool",
      tags: ["tools"],
      summary: "One tool: versions, providers with trust and health, schemas",
      parameters: [path("name", "The tool's name.")],
      responses: { "200": ok("the tool", ref("ToolView")), ...errors([...CALLER, "tool_not_found"]) },
    },
  },
};
