/**
 * The document's paths of the audit drills: failures an operator arms to prove the audit
 * pipeline delivers anyway.
 */
import { ref } from "./schema-builders.ts";
import { ok, requestBody } from "./media.ts";
import { errors, OPERATOR } from "./error-responses.ts";

export const drillPaths = {
  "/v1/admin/audit/drill/fail-next-batch": {
    post: {
      operationId: "armAuditDrill",
      tags: ["operators"],
      summary: "Drill: the audit consumer fails its next batch halfway",
      responses: { "200": ok("armed", ref("AuditDrill")), ...errors(OPERATOR) },
    },
  },
  "/v1/admin/audit/drill/fail-batches": {
    post: {
      operationId: "armAuditBatchesDrill",
      tags: ["operators"],
      summary:
        "Drill: the audit consumer fails its next `count` batches before writing anything (with `tenant`: hands back that tenant's records only, message by message); past max_retries they reach the dead letter queue, whose consumer must write them",
      requestBody: requestBody(ref("BatchesDrillRequest")),
      responses: {
        "200": ok("armed", ref("BatchesDrill")),
        ...errors([...OPERATOR, "invalid_request", "payload_too_large", "unsupported_media_type"]),
      },
    },
  },
  "/v1/admin/audit/drills": {
    get: {
      operationId: "getAuditDrills",
      tags: ["operators"],
      summary: "What the audit drills have done: armed, fired, and the last batch the batch drill failed",
      responses: { "200": ok("the drills' state", ref("AuditDrills")), ...errors(OPERATOR) },
    },
  },
  "/v1/admin/audit/drill/fail-next-send": {
    post: {
      operationId: "armAuditSendDrill",
      tags: ["operators"],
      summary:
        "Drill: the next audit sends of the isolate serving this request fail; the durable outbox must deliver them",
      requestBody: requestBody(ref("SendDrillRequest"), false),
      responses: {
        "200": ok("armed", ref("SendDrill")),
        ...errors([...OPERATOR, "invalid_request", "payload_too_large", "unsupported_media_type"]),
      },
    },
  },
};
