/**
 * Component schemas of API keys: the operator's bootstrap, creating, listing and revoking keys.
 */
import { all, object, oneOfStrings, ref, str, strings, time } from "./schema-builders.ts";

const apiKey = {
  key_id: str,
  tenant: str,
  agent: str,
  capabilities: strings,
  channels: strings,
  role: {
    ...oneOfStrings(["agent", "tenant_admin", "approver", "admin", "tenant"]),
    description:
      "agent: calls tools, sees its own executions (tenant: a key made before roles, the same); tenant_admin: also every execution, audit record, upstream token and key of its tenant; approver: also decides its tenant's approvals; admin: an operator",
  },
  created_at: time,
  revoked_at: time,
};

export const ApiKeyRequest = object(
  {
    tenant: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$" },
    agent: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$" },
    capabilities: { ...strings, description: "none when left out (least privilege)" },
    channels: {
      ...strings,
      description: 'The providers the key may reach: none when left out (least privilege); ["*"] for every provider.',
    },
    role: {
      type: "string",
      enum: ["agent", "tenant_admin", "approver", "admin", "tenant"],
      description:
        "agent when left out (tenant: its old name, stored as agent); tenant_admin: also sees and cancels its tenant's executions, reads its audit records, keeps its upstream tokens and manages its keys; approver: also decides its tenant's approvals (not its own call); admin makes an operator's key (operators only)",
    },
  },
  ["tenant", "agent"],
);
export const BootstrapRequest = object(
  {
    tenant: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$", description: "ops when left out" },
    agent: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$", description: "operator when left out" },
  },
  [],
);
export const ApiKey = all(apiKey, ["revoked_at"]);
export const NewApiKey = all({ key: { ...str, description: "The secret: shown in this answer only." }, ...apiKey }, [
  "revoked_at",
]);
export const ApiKeyList = all({ keys: { type: "array", items: ref("ApiKey") } });
