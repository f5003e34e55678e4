/**
 * The example upstream's tools, each there to exercise one thing the runtime must handle when
 * it federates an MCP server (docs/contract.md#upstreams):
 *
 *   echo          fast and read-only: the plain path, with structured content
 *   slow_count    slow: progress notifications, log messages, cancellation
 *   always_fails  a tool error (`isError: true`), not a protocol error
 *   whoami        which bearer token the call arrived with (credential injection)
 *   mutable_echo  a definition that changes at run time (definition pinning, "rug pull")
 *
 * Schemas are plain JSON Schema (what a registry holds), wrapped by the SDK's
 * `fromJsonSchema` with the validator that needs no code generation.
 */
import { type JsonSchemaType, type McpServer, type ServerContext, fromJsonSchema } from "@modelcontextprotocol/server";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
import { waitUntil } from "cloudflare:workers";
import { bearerToken, sha256Hex } from "./auth.ts";
import { type Env, stateOf } from "./env.ts";
import type { DefinitionOverride, RunRecord } from "./state.ts";

/** Picked by name rather than left to export conditions: Workers refuse `new Function`. */
export const validator = new CfWorkerJsonSchemaValidator();
// Registry schemas are plain JSON objects, extension keywords (`x-mcp-header`) included.
const schema = (json: Record<string, unknown>) => fromJsonSchema(json as JsonSchemaType, validator);

const text = (value: string) => ({ type: "text" as const, text: value });
const readOnly = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };

export const MUTABLE_TOOL = "mutable_echo";
export const MUTABLE_DEFAULTS = {
  description: "Echoes its text. (Its definition can be changed at run time through the admin endpoint.)",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
} satisfies Required<DefinitionOverride>;

/** The SHA-256 of the bearer token this request arrived with, verified or not. */
async function callerTokenHash(ctx: ServerContext): Promise<string | null> {
  const token = ctx.http?.authInfo?.token ?? bearerToken(ctx.http?.req);
  return token === null ? null : sha256Hex(token);
}

/** Resolves after `ms`, or rejects as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Registers every tool on a fresh server; `mutable` is the mutable tool's current definition. */
export function registerTools(server: McpServer, env: Env, mutable: DefinitionOverride | null): void {
  server.registerTool(
    "echo",
    {
      description: "Returns its text unchanged.",
      inputSchema: schema({
        type: "object",
        properties: { text: { type: "string", maxLength: 10_000 } },
        required: ["text"],
        additionalProperties: false,
      }),
      outputSchema: schema({ type: "object", properties: { text: { type: "string" } }, required: ["text"] }),
      annotations: { ...readOnly, idempotentHint: true },
    },
    async (args) => {
      const { text: value } = args as { text: string };
      return { content: [text(value)], structuredContent: { text: value } };
    },
  );

  server.registerTool(
    "slow_count",
    {
      description:
        "Counts from 1 to `to`, one number every `interval_ms`, reporting each as progress. Stops when the call is cancelled. " +
        "With `run_id`, what the run did can be read back from the upstream's admin endpoint.",
      inputSchema: schema({
        type: "object",
        properties: {
          to: { type: "integer", minimum: 1, maximum: 1000 },
          interval_ms: { type: "integer", minimum: 1, maximum: 10_000, default: 100 },
          // Mirrored into an `Mcp-Param-Run-Id` header (MCP 2026-07-28, SEP-2243 x-mcp-header),
          // so an intermediary can route or log by run without reading the body.
          run_id: { type: "string", minLength: 1, maxLength: 100, "x-mcp-header": "Run-Id" },
        },
        required: ["to"],
        additionalProperties: false,
      }),
      outputSchema: schema({ type: "object", properties: { counted: { type: "integer" } }, required: ["counted"] }),
      annotations: { ...readOnly, idempotentHint: true },
    },
    async (args, ctx) => {
      const { to, interval_ms = 100, run_id } = args as { to: number; interval_ms?: number; run_id?: string };
      const token = ctx.mcpReq._meta?.progressToken;
      const tokenHash = await callerTokenHash(ctx);
      // Recorded with waitUntil: after a cancellation the client is gone, and the write must
      // still land for a test to read it.
      const record = (status: RunRecord["status"], reached: number) => {
        if (run_id !== undefined)
          waitUntil(stateOf(env).recordRun(run_id, { status, reached, token_sha256: tokenHash }));
      };
      record("running", 0);
      // Sent only when the client asked for log messages (2026-07-28: `_meta` logLevel).
      await ctx.mcpReq.log("info", { event: "slow_count started", to }, "slow_count");
      let reached = 0;
      try {
        while (reached < to) {
          await sleep(interval_ms, ctx.mcpReq.signal);
          reached += 1;
          if (token !== undefined) {
            await ctx.mcpReq.notify({
              method: "notifications/progress",
              params: { progressToken: token, progress: reached, total: to, message: `counted ${reached} of ${to}` },
            });
          }
        }
      } catch (error) {
        // The signal aborts when the client closes the request (or, for a 2025 session,
        // sends notifications/cancelled); nobody reads an answer after that.
        if (ctx.mcpReq.signal.aborted) record("cancelled", reached);
        throw error;
      }
      // Recorded before returning: the SDK aborts the signal again when it tears the
      // exchange down after the answer, which is not a cancellation.
      record("completed", reached);
      await ctx.mcpReq.log("info", { event: "slow_count finished", counted: reached }, "slow_count");
      return { content: [text(`counted to ${reached}`)], structuredContent: { counted: reached } };
    },
  );

  server.registerTool(
    "always_fails",
    {
      description: "Always fails, as a tool error (isError: true) the model can read.",
      inputSchema: schema({ type: "object", properties: {}, additionalProperties: false }),
      annotations: { ...readOnly, idempotentHint: true },
    },
    async () => ({ content: [text("always_fails failed, as it always does")], isError: true }),
  );

  server.registerTool(
    "whoami",
    {
      description: "Returns the SHA-256 (hex) of the bearer token this call arrived with, or null without one.",
      inputSchema: schema({ type: "object", properties: {}, additionalProperties: false }),
      outputSchema: schema({
        type: "object",
        properties: { token_sha256: { type: ["string", "null"] } },
        required: ["token_sha256"],
      }),
      annotations: { ...readOnly, idempotentHint: true },
    },
    async (_args, ctx) => {
      const token_sha256 = await callerTokenHash(ctx);
      return { content: [text(JSON.stringify({ token_sha256 }))], structuredContent: { token_sha256 } };
    },
  );

  server.registerTool(
    MUTABLE_TOOL,
    {
      description: mutable?.description ?? MUTABLE_DEFAULTS.description,
      inputSchema: schema(mutable?.inputSchema ?? MUTABLE_DEFAULTS.inputSchema),
      annotations: readOnly,
    },
    async (args) => ({ content: [text(JSON.stringify(args))] }),
  );
}
