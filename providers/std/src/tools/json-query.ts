/** `json.query`: picks one value out of a JSON document by RFC 6901 JSON Pointer. */
import { defineTool, ToolError } from "../../../sdk/define.ts";
import { MalformedPointer, resolvePointer } from "./json-pointer.ts";

// ajv's strict mode refuses union `type` arrays, so "any JSON value" is spelled as a choice.
const ANY_JSON_VALUE = {
  anyOf: [
    { type: "object" },
    { type: "array" },
    { type: "string" },
    { type: "number" },
    { type: "boolean" },
    { type: "null" },
  ],
};

export const jsonQuery = defineTool<{ document: unknown; path: string }, { found: boolean; value: unknown }>({
  name: "json.query",
  version: "1.0.0",
  description:
    'Looks up a value in a JSON document by JSON Pointer (RFC 6901): "" is the whole document, "/a/0/b~1c" is key "b/c" of the first item of "a". A path that leads nowhere gives found: false.',
  input: {
    type: "object",
    properties: {
      document: { ...ANY_JSON_VALUE, description: "Any JSON value" },
      path: { type: "string", maxLength: 4096, description: "A JSON Pointer, for example /items/0/name" },
    },
    required: ["document", "path"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      found: { type: "boolean" },
      value: { ...ANY_JSON_VALUE, description: "The value found, or null when found is false" },
    },
    required: ["found", "value"],
    additionalProperties: false,
  },
  capability_required: null,
  idempotent: true,
  latency_class: "instant",
  effects: "read",
  tags: ["json", "data"],
  coercion: "strict",
  error_codes: [
    {
      code: "malformed_pointer",
      description: "The path is not an RFC 6901 JSON Pointer (it must be empty or start with /; ~ only as ~0 or ~1).",
    },
  ],
  handler: ({ document, path }) => {
    try {
      // A missing path is a normal answer (callers probe optional fields), not a failure.
      const resolution = resolvePointer(document, path);
      return resolution.found ? { found: true, value: resolution.value } : { found: false, value: null };
    } catch (err) {
      if (err instanceof MalformedPointer)
        throw new ToolError(err.message, { code: "malformed_pointer", details: { path } });
      throw err;
    }
  },
});
