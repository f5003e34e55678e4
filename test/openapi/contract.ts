/**
 * The project's response types and the types openapi-typescript generates from the OpenAPI
 * document (`.build/openapi/schema.d.ts`, written by scripts/build-openapi.ts before every
 * typecheck) must agree, so `npm run typecheck` fails when one changes without the other.
 *
 * For each pair: a project value must be assignable to the document's type (the API never
 * answers what the document does not allow), the document's to the project's (the document
 * promises nothing the project lacks), and both must name the same properties (an optional
 * field added on one side only is caught too). Nothing here runs; it is only type-checked.
 */
import type { components } from "../../.build/openapi/schema.d.ts";
import type {
  ApprovalState,
  AttemptRecord,
  Cancellation,
  CapabilityDecision,
  ErrorBody,
  ExecutionBlock,
  ExecutionResources,
  ExecutionView,
  PendingApproval,
  ToolOfferingView,
  ToolVersionView,
  ToolView,
} from "../../src/contract.ts";
import type { StreamEvent, ToolRuntimeClient } from "../../client/index.ts";
import type { Readiness } from "../../src/routes/health.ts";
import type { Bundle } from "../../src/registry/bundles.ts";
import type { TenantUsage } from "../../src/contract.ts";

type Doc = components["schemas"];

/** `true` when A and B name exactly the same properties; otherwise the names that differ. */
type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never]
  ? true
  : { onlyInProject: Exclude<keyof A, keyof B>; onlyInDocument: Exclude<keyof B, keyof A> };

/** Fails to compile, naming the mismatch, unless Project and Document agree both ways. */
function agree<Project, Document>(_checks: {
  toDocument: (p: Project) => Document;
  toProject: (d: Document) => Project;
  keys: SameKeys<Project, Document>;
}): void {}

agree<ExecutionView, Doc["ExecutionView"]>({ toDocument: (p) => p, toProject: (d) => d, keys: true });
agree<ExecutionBlock, Doc["ExecutionBlock"]>({ toDocument: (p) => p, toProject: (d) => d, keys: true });
agree<ExecutionResources, Doc["ExecutionResources"]>({ toDocument: (p) => p, toProject: (d) => d, keys: true });
agree<ErrorBody, Doc["ErrorBody"]>({ toDocument: (p) => p, toProject: (d) => d, keys: true });
agree<Cancellation, Doc["Cancellation"]>({ toDocument: (p) => p, toProject: (d) => d, keys: true });
agree<CapabilityDecision, Doc["CapabilityDecision"]>({ toDocument: (p) => p, toProject: (d) => d, keys: true });
agree<CapabilityDecision["level2"], Doc["CapabilityDecision"]["level2"]>({
  toDocument: (p) => p,
  toProject: (d) => d,
  keys: true,
});
agree<AttemptRecord, Doc["Attempt"]>({ toDocument: (p) => p, toProject: (d) => d, keys: true });
agree<ToolView, Doc["ToolView"]>({ toDocument: (p) => p, toProject: (d) => d, keys: true });
agree<ToolVersionView, Doc["ToolView"]["versions"][number]>({ toDocument: (p) => p, toProject: (d) => d, keys: true });
agree<ToolOfferingView, Doc["ToolOffering"]>({ toDocument: (p) => p, toProject: (d) => d, keys: true });
agree<Bundle, Doc["Bundle"]>({ toDocument: (p) => p, toProject: (d) => d, keys: true });
// The typed client (client/) reads streams with its own event type, which also takes event
// types newer than the document (forward compatible): every documented event fits it.
function accepts<Project, Document>(_checks: {
  toProject: (d: Document) => Project;
  keys: SameKeys<Project, Document>;
}): void {}
accepts<StreamEvent, Doc["StreamEvent"]>({ toProject: (d) => d, keys: true });
agree<Awaited<ReturnType<ToolRuntimeClient["listTools"]>>, Doc["ToolList"]>({
  toDocument: (p) => p,
  toProject: (d) => d,
  keys: true,
});
// The operators' readiness report (GET /v1/admin/readiness) and the public status (GET /readyz).
agree<Readiness, Doc["ReadinessReport"]>({ toDocument: (p) => p, toProject: (d) => d, keys: true });
agree<Pick<Readiness, "status">, Doc["Readiness"]>({ toDocument: (p) => p, toProject: (d) => d, keys: true });
// What approvers see, and the approval part of a view.
agree<PendingApproval, Doc["PendingApproval"]>({ toDocument: (p) => p, toProject: (d) => d, keys: true });
agree<ApprovalState, Doc["ApprovalState"]>({ toDocument: (p) => p, toProject: (d) => d, keys: true });
// What a tenant used (GET /v1/usage).
agree<TenantUsage, Doc["TenantUsage"]>({ toDocument: (p) => p, toProject: (d) => d, keys: true });
