/**
 * The upstream's admin endpoint, for tests only and off unless ADMIN_SECRET is set:
 *
 *   GET    /admin/tools/mutable_echo   the current definition override (or null)
 *   PUT    /admin/tools/mutable_echo   {description?, inputSchema?}: change what tools/list says
 *   DELETE /admin/tools/mutable_echo   back to the defaults
 *   GET    /admin/runs/:run_id         what a slow_count run did (404 if unknown)
 *
 * A change also publishes `notifications/tools/list_changed` to `subscriptions/listen`
 * streams held by this isolate (the SDK's default event bus is per isolate).
 */
import { isOneOf, bearerToken } from "./auth.ts";
import { type Env, stateOf } from "./env.ts";
import type { DefinitionOverride } from "./state.ts";
import { MUTABLE_TOOL, validator } from "./tools.ts";

const json = (body: unknown, status = 200) => Response.json(body, { status });
const problem = (status: number, message: string) => json({ error: message }, status);

/** Checks a proposed override; returns an error message, or null when it is usable. */
function invalidOverride(body: unknown): string | null {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "the body must be a JSON object";
  const { description, inputSchema, ...rest } = body as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return `unknown fields: ${Object.keys(rest).join(", ")}`;
  if (description !== undefined && typeof description !== "string") return "description must be a string";
  if (inputSchema !== undefined) {
    if (
      typeof inputSchema !== "object" ||
      inputSchema === null ||
      (inputSchema as { type?: unknown }).type !== "object"
    ) {
      return 'inputSchema must be a JSON Schema object with "type": "object"';
    }
    try {
      validator.getValidator(inputSchema as never);
    } catch (error) {
      return `inputSchema is not a usable JSON Schema: ${(error as Error).message}`;
    }
  }
  return null;
}

export async function handleAdmin(request: Request, env: Env, onToolsChanged: () => void): Promise<Response> {
  if (!env.ADMIN_SECRET) return problem(404, "not found");
  const token = bearerToken(request);
  if (token === null || !(await isOneOf(token, [env.ADMIN_SECRET]))) return problem(401, "admin secret required");

  const path = new URL(request.url).pathname;
  const state = stateOf(env);
  if (path === `/admin/tools/${MUTABLE_TOOL}`) {
    switch (request.method) {
      case "GET":
        return json({ tool: MUTABLE_TOOL, override: await state.definition(MUTABLE_TOOL) });
      case "PUT": {
        const body = await request.json().catch(() => undefined);
        const invalid = invalidOverride(body);
        if (invalid !== null) return problem(400, invalid);
        await state.setDefinition(MUTABLE_TOOL, body as DefinitionOverride);
        onToolsChanged();
        return json({ tool: MUTABLE_TOOL, override: body });
      }
      case "DELETE":
        await state.resetDefinition(MUTABLE_TOOL);
        onToolsChanged();
        return json({ tool: MUTABLE_TOOL, override: null });
      default:
        return new Response(null, { status: 405, headers: { allow: "GET, PUT, DELETE" } });
    }
  }
  const run = /^\/admin\/runs\/([^/]+)$/.exec(path);
  if (run !== null && request.method === "GET") {
    const record = await state.run(decodeURIComponent(run[1]));
    return record === null ? problem(404, "no such run") : json(record);
  }
  return problem(404, "not found");
}
