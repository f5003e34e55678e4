/** Examples of OAuth grants (src/openapi/paths-oauth.ts): one MCP client's grant of a bundle. */
import { AT, type OperationExamples, v } from "./examples-shared.ts";

const grant = {
  grant_id: "q3V9xk2LmP8wRt4Z",
  client_id: "Yc81Hf0sQw2pLk7N",
  client_name: "Claude",
  agent: "research-bot",
  key_id: "key_Vb3kP0x9qLm2",
  bundle: "research",
  resource: "https://tools.example.com/mcp",
  created_at: AT,
  expires_at: null,
};

export const oauthExamples: Record<string, OperationExamples> = {
  listOAuthGrants: { responses: { "200": v({ grants: [grant], next_cursor: null }) } },
  revokeOAuthGrant: { responses: { "200": v({ ...grant, revoked: true }) } },
};
