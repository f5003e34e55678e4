/**
 * The component schemas of the OpenAPI document (src/openapi/document.ts): every body the
 * runtime answers, property by property, in the document's order; each is defined in the
 * file of what it describes (src/openapi/schemas-*.ts). They mirror the shared types
 * (src/contract.ts and the types the routes build); `npm run typecheck` holds the two together
 * (test/openapi/contract.ts assigns each project type to the type openapi-typescript
 * generates from these schemas, and back), and the e2e suite holds every real response to them.
 *
 * Adding a status, an event type or a field is one line: the lists in
 * src/openapi/schema-builders.ts or the schema's own file, or one property.
 */
import { DeprecationRequest, DeprecationState, ToolList, ToolOffering, ToolView } from "./schemas-tools.ts";
import { ErrorBody, ErrorEnvelope } from "./schemas-errors.ts";
import {
  Accepted,
  CancelRequest,
  DryRun,
  ExecutionId,
  ExecutionList,
  ExecutionRequest,
  StreamEvent,
} from "./schemas-executions.ts";
import {
  Attempt,
  Cancellation,
  CapabilityDecision,
  ExecutionBlock,
  ExecutionResources,
  ExecutionView,
  FailedExecution,
} from "./schemas-execution-view.ts";
import {
  ApprovalDecision,
  ApprovalList,
  ApprovalRequest,
  ApprovalState,
  PendingApproval,
} from "./schemas-approvals.ts";
import { Health, ProtectedResourceMetadata, Readiness, ReadinessReport } from "./schemas-operations.ts";
import {
  AuditDrill,
  AuditDrills,
  AuditList,
  BatchesDrill,
  BatchesDrillRequest,
  Provider,
  ProviderPatch,
  RefusalCounts,
  RegistrySummary,
  SendDrill,
  SendDrillRequest,
} from "./schemas-admin.ts";
import { ApiKey, ApiKeyList, ApiKeyRequest, BootstrapRequest, NewApiKey } from "./schemas-keys.ts";
import {
  DefinitionApproval,
  DefinitionRejection,
  Upstream,
  UpstreamCredential,
  UpstreamCredentialRequest,
  UpstreamList,
  UpstreamRegistration,
  UpstreamRemoved,
} from "./schemas-upstreams.ts";

export const schemas = {
  ExecutionId,
  ErrorBody,
  ErrorEnvelope,
  ExecutionRequest,
  CancelRequest,
  ExecutionBlock,
  ExecutionResources,
  Attempt,
  CapabilityDecision,
  Cancellation,
  ExecutionView,
  ApprovalState,
  ApprovalDecision,
  PendingApproval,
  ApprovalList,
  ApprovalRequest,
  FailedExecution,
  Accepted,
  DryRun,
  StreamEvent,
  ToolList,
  ToolView,
  ToolOffering,
  ExecutionList,
  RefusalCounts,
  AuditList,
  Health,
  ProtectedResourceMetadata,
  Readiness,
  ReadinessReport,
  Provider,
  UpstreamRegistration,
  Upstream,
  UpstreamList,
  UpstreamRemoved,
  DefinitionApproval,
  DefinitionRejection,
  UpstreamCredentialRequest,
  UpstreamCredential,
  RegistrySummary,
  ProviderPatch,
  DeprecationRequest,
  DeprecationState,
  ApiKeyRequest,
  BootstrapRequest,
  ApiKey,
  NewApiKey,
  ApiKeyList,
  AuditDrill,
  SendDrillRequest,
  SendDrill,
  BatchesDrillRequest,
  BatchesDrill,
  AuditDrills,
};
