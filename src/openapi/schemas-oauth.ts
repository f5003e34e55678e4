/** Component schemas of OAuth grants (docs/oauth.md#grants; src/oauth/grants.ts). */
import { all, nullable, ref, str, strings, time } from "./schema-builders.ts";

const grant = {
  grant_id: { ...str, description: "The grant's id: DELETE /v1/oauth/grants/{id} revokes it" },
  client_id: { ...str, description: "The OAuth client it was granted to" },
  client_name: { ...nullable(str), description: "The client's name, as it registered" },
  agent: {
    ...str,
    description:
      "The agent of the API key that granted it (the ID token's sub for a person signed in through the identity provider): its tokens call as this agent",
  },
  key_id: {
    ...str,
    description:
      "That key's id, revoking the key ends every token of the grant; idp:<issuer host> for a grant made through the identity provider",
  },
  channels: {
    ...strings,
    description: 'The channels granted ("*": every channel the key allows), absent for a bundle grant',
  },
  bundle: { ...str, description: "The bundle granted, absent for a channels grant" },
  resource: { ...str, format: "uri", description: "The protected resource (RFC 8707): its tokens' audience" },
  created_at: time,
  expires_at: { ...nullable(str), format: "date-time", description: "null: until revoked" },
};

export const OAuthGrant = all(grant, ["channels", "bundle"]);
export const OAuthGrantList = all({
  grants: { type: "array", items: ref("OAuthGrant") },
  next_cursor: { ...nullable(str), description: "Pass as ?cursor= for the next page; null on the last" },
});
export const RevokedOAuthGrant = all({ ...grant, revoked: { type: "boolean", const: true } }, ["channels", "bundle"]);
