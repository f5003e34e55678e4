/**
 * The privilege matrix: every operation of the OpenAPI document × six callers × the resources
 * the operation acts on — the caller's own, another agent's of the same tenant, another
 * tenant's — and, for the execution reads and cancel, the other faces (MessagePack, Connect,
 * MCP tasks). Each cell expects an allow, a 403 `forbidden` with its reason, or a 404 where
 * existence must not leak; the test collects every cell that differs and expects none. An
 * operation of the document without a row fails the test, so a new route cannot be missed
 * (and test/integration/route-table.test.ts keeps every route of the app in the document).
 *
 * Callers: two agents of tenant T, T's tenant admin, T's approver, an operator whose key
 * is of T (operators are global on the operator routes; executions are read per tenant), and
 * an agent of another tenant U. T and U hold an approval rule (`gate-read-*`), so deciding is real.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asAdmin, baseUrl, call } from "./http.ts";
import { tenant } from "./tenants.ts";
import { connectCall, mcpTask, rest, type Verdict } from "./privilege-faces.ts";

type Who = "agent" | "otherAgent" | "tenantAdmin" | "approver" | "operator" | "stranger";
const WHO: Who[] = ["agent", "otherAgent", "tenantAdmin", "approver", "operator", "stranger"];

/** allow: anything but 401/403/5xx (operators' probes may be refused later, for their input); else the refusal expected. */
type Expectation = "allow" | { status: 403; reason: string } | { status: 404 | 401; code: string };

interface Cell {
  op: string;
  who: Who;
  resource: string;
  /** 1: reads and refusals; 2: allowed changes, after every refusal was seen to change nothing. */
  phase: 1 | 2;
  expect: Expectation;
  run: () => Promise<Verdict>;
  /** More to check on an allowed answer: a problem, or null. */
  check?: (v: Verdict) => string | null;
}

const T = tenant("gate-read");
const U = tenant("gate-read");
const key = {} as Record<Who, string>;
const agentOf: Record<Who, string> = {
  agent: "bot-a",
  otherAgent: "bot-b",
  tenantAdmin: "ops",
  approver: "judge",
  operator: "root",
  stranger: "bot-x",
};
const tenantOf = (who: Who) => (who === "stranger" ? U : T);
const ROLE: Record<Who, string> = {
  agent: "agent",
  otherAgent: "tenant",
  tenantAdmin: "tenant_admin",
  approver: "approver",
  operator: "admin",
  stranger: "agent",
};
const minted: string[] = [];

async function mint(t: string, agent: string, role: string, channels = ["*"]): Promise<{ key: string; id: string }> {
  const res = await asAdmin("POST", "/v1/admin/keys", {
    tenant: t,
    agent,
    role,
    channels,
    capabilities: ["network:*"],
  });
  expect(res.status).toBe(201);
  minted.push(res.body.key_id);
  return { key: res.body.key, id: res.body.key_id };
}

/** Executions: runs (long, so a cancel can be seen not to happen) and calls awaiting approval. */
const run = {} as Record<"A" | "B" | "X", string>;
const pend = {} as Record<"A1" | "A2" | "J" | "X", string>;
const keysToRevoke = {} as Record<"T" | "opT" | "U" | "Ufresh", string>;
const COUNTDOWN = { tool: "demo.countdown", mode: "async", input: { from: 600, interval_ms: 200 } };
const GATED = (name: string) => ({
  tool: "lab.was_erased",
  mode: "async",
  input: { name },
  limits: { timeout_ms: 60_000 },
});

async function start(who: Who, body: unknown): Promise<string> {
  const res = await rest(key[who], "POST", "/v1/executions", body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.execution_id;
}

beforeAll(async () => {
  for (const who of WHO) key[who] = (await mint(tenantOf(who), agentOf[who], ROLE[who])).key;
  run.A = await start("agent", COUNTDOWN);
  run.B = await start("otherAgent", COUNTDOWN);
  run.X = await start("stranger", COUNTDOWN);
  pend.A1 = await start("agent", GATED(`a1-${crypto.randomUUID()}`));
  pend.A2 = await start("agent", GATED(`a2-${crypto.randomUUID()}`));
  pend.J = await start("approver", GATED(`j-${crypto.randomUUID()}`));
  pend.X = await start("stranger", GATED(`x-${crypto.randomUUID()}`));
  keysToRevoke.T = (await mint(T, "spare", "agent")).id;
  keysToRevoke.opT = (await mint(T, "spare-operator", "admin")).id;
  keysToRevoke.U = (await mint(U, "spare", "agent")).id;
  keysToRevoke.Ufresh = (await mint(U, "spare-2", "agent")).id;
}, 60_000);

afterAll(async () => {
  for (const id of [...Object.values(run), ...Object.values(pend)])
    await call(
      "POST",
      `/v1/executions/${id}/cancel`,
      { grace_ms: 0 },
      { authorization: `Bearer ${id === run.X || id === pend.X ? key.stranger : key.tenantAdmin}` },
    );
  await rest(key.tenantAdmin, "DELETE", "/v1/upstreams/example/credential");
  for (const id of minted) await asAdmin("DELETE", `/v1/admin/keys/${id}`);
});

const forbidden = (reason: string): Expectation => ({ status: 403, reason });
const hidden: Expectation = { status: 404, code: "execution_not_found" };
const OPERATOR_ONLY = forbidden("admin role required");
const TENANT_ADMIN_ONLY = forbidden("tenant_admin role required");
const APPROVER_ONLY = forbidden("approver role required");
/** May `who` see an execution made by `owner`? Its own, or its tenant's for a tenant admin or operator. */
const sees = (who: Who, owner: Who) =>
  tenantOf(who) === tenantOf(owner) && (who === owner || who === "tenantAdmin" || who === "operator");
const ownerOfRun = { A: "agent", B: "otherAgent", X: "stranger" } as const;

/** Every (caller, run) pair on one execution operation, on one face. */
function overRuns(
  op: string,
  phaseOfAllow: 1 | 2,
  request: (who: Who, id: string) => Promise<Verdict>,
  hiddenAs: Expectation = hidden,
): Cell[] {
  return WHO.flatMap((who) =>
    (["A", "B", "X"] as const).map((r): Cell => {
      const visible = sees(who, ownerOfRun[r]);
      return {
        op,
        who,
        resource: `run ${r} (${ownerOfRun[r]}'s)`,
        phase: visible ? phaseOfAllow : 1,
        expect: visible ? "allow" : hiddenAs,
        run: () => request(who, run[r]),
      };
    }),
  );
}

function everyone(
  op: string,
  request: (who: Who) => Promise<Verdict>,
  allowed: Who[] | "all",
  refusal: Expectation,
  phase: 1 | 2 = 1,
  check?: Cell["check"],
): Cell[] {
  return WHO.map((who) => {
    const allow = allowed === "all" || allowed.includes(who);
    return {
      op,
      who,
      resource: "-",
      phase: allow ? phase : 1,
      expect: allow ? "allow" : refusal,
      run: () => request(who),
      ...(allow && check ? { check } : {}),
    };
  });
}

const operatorOnly = (op: string, method: string, path: string, body?: unknown) =>
  everyone(op, (who) => rest(key[who], method, path, body), ["operator"], OPERATOR_ONLY);
const publicOp = (op: string, path: string) => [
  ...everyone(op, (who) => rest(key[who], "GET", path), "all", OPERATOR_ONLY),
  {
    op,
    who: "agent" as Who,
    resource: "no key",
    phase: 1 as const,
    expect: "allow" as const,
    run: () => rest(null, "GET", path),
  },
];

function decide(op: "approve" | "reject"): Cell[] {
  const body = op === "reject" ? { reason: "not now" } : {};
  const mine = op === "approve" ? "A1" : "A2";
  const cells: Cell[] = [];
  for (const who of WHO) {
    for (const r of [mine, "J", "X"] as const) {
      const expectation: Expectation =
        who !== "approver" ? APPROVER_ONLY : r === "J" ? forbidden("self approval") : r === "X" ? hidden : "allow";
      cells.push({
        op: `${op}Execution`,
        who,
        resource: `pending ${r}`,
        phase: expectation === "allow" ? 2 : 1,
        expect: expectation,
        run: () => rest(key[who], "POST", `/v1/executions/${pend[r]}/${op}`, body),
      });
    }
  }
  return cells;
}

/** One row per operationId of the OpenAPI document: the cells that judge it. */
const ROWS: Record<string, () => Cell[]> = {
  createExecution: () =>
    everyone(
      "createExecution",
      (who) =>
        rest(key[who], "POST", "/v1/executions", { tool: "lab.echo", input: { who }, limits: { timeout_ms: 20_000 } }),
      "all",
      OPERATOR_ONLY,
    ),
  listExecutions: () =>
    WHO.map((who): Cell => ({
      op: "listExecutions",
      who,
      resource: "runs A, B, X",
      phase: 1,
      expect: "allow",
      run: () => rest(key[who], "GET", "/v1/executions?limit=100"),
      check: (v) => {
        const listed = new Set((v.body.executions as { execution_id: string }[]).map((e) => e.execution_id));
        const wrong = (["A", "B", "X"] as const).filter((r) => listed.has(run[r]) !== sees(who, ownerOfRun[r]));
        return wrong.length ? `lists wrongly: ${wrong.map((r) => `run ${r}`).join(", ")}` : null;
      },
    })),
  getExecution: () => [
    ...overRuns("getExecution", 1, (who, id) => rest(key[who], "GET", `/v1/executions/${id}`)),
    ...overRuns("getExecution (MessagePack)", 1, (who, id) =>
      rest(key[who], "GET", `/v1/executions/${id}`, undefined, "msgpack"),
    ),
    ...overRuns("getExecution (Connect)", 1, (who, id) => connectCall(key[who], "getExecution", id), {
      status: 404,
      code: "NotFound",
    }),
    ...overRuns("tasks/get (MCP)", 1, (who, id) => mcpTask(key[who], "tasks/get", id), { status: 404, code: "-32602" }),
  ],
  streamExecution: () =>
    overRuns("streamExecution", 1, (who, id) => rest(key[who], "GET", `/v1/executions/${id}/stream`)),
  cancelExecution: () => [
    ...overRuns("cancelExecution", 2, (who, id) =>
      rest(key[who], "POST", `/v1/executions/${id}/cancel`, { grace_ms: 0 }),
    ),
    ...overRuns("cancelExecution (MessagePack)", 2, (who, id) =>
      rest(key[who], "POST", `/v1/executions/${id}/cancel`, { grace_ms: 0 }, "msgpack"),
    ),
    ...overRuns("cancel (Connect)", 2, (who, id) => connectCall(key[who], "cancel", id), {
      status: 404,
      code: "NotFound",
    }),
    ...overRuns("tasks/cancel (MCP)", 2, (who, id) => mcpTask(key[who], "tasks/cancel", id), {
      status: 404,
      code: "-32602",
    }),
  ],
  approveExecution: () => decide("approve"),
  rejectExecution: () => decide("reject"),
  listApprovals: () =>
    everyone(
      "listApprovals",
      (who) => rest(key[who], "GET", "/v1/approvals"),
      ["approver"],
      APPROVER_ONLY,
      1,
      (v) => {
        const ids = (v.body.approvals as { execution_id: string }[]).map((a) => a.execution_id);
        return ids.includes(pend.X) || !ids.includes(pend.A1) ? `approvals listed: ${ids.join(", ")}` : null;
      },
    ),
  listTools: () => everyone("listTools", (who) => rest(key[who], "GET", "/v1/tools"), "all", OPERATOR_ONLY),
  getTool: () => everyone("getTool", (who) => rest(key[who], "GET", "/v1/tools/lab.echo"), "all", OPERATOR_ONLY),
  getOpenApiDocument: () => publicOp("getOpenApiDocument", "/v1/openapi.json"),
  getProtectedResourceMetadata: () => publicOp("getProtectedResourceMetadata", "/.well-known/oauth-protected-resource"),
  getMcpProtectedResourceMetadata: () =>
    publicOp("getMcpProtectedResourceMetadata", "/.well-known/oauth-protected-resource/mcp"),
  getHealth: () => publicOp("getHealth", "/healthz"),
  getReadiness: () => publicOp("getReadiness", "/readyz"),
  getMetrics: () => operatorOnly("getMetrics", "GET", "/metrics"),
  listAuditRecords: () => [
    ...everyone(
      "listAuditRecords",
      (who) => rest(key[who], "GET", "/v1/audit?limit=100"),
      ["tenantAdmin", "operator"],
      TENANT_ADMIN_ONLY,
    ),
    {
      op: "listAuditRecords",
      who: "tenantAdmin",
      resource: "own tenant only",
      phase: 1,
      expect: "allow",
      run: () => rest(key.tenantAdmin, "GET", "/v1/audit?limit=100"),
      check: (v) =>
        (v.body.records as { tenant: string }[]).every((r) => r.tenant === T) ? null : "another tenant's records",
    },
    {
      op: "listAuditRecords",
      who: "tenantAdmin",
      resource: "?tenant=U",
      phase: 1,
      expect: forbidden("another tenant"),
      run: () => rest(key.tenantAdmin, "GET", `/v1/audit?tenant=${U}`),
    },
  ],
  getTenantUsage: () => [
    // Both keys are of T: without ?tenant= each reads T's usage.
    ...everyone(
      "getTenantUsage",
      (who) => rest(key[who], "GET", "/v1/usage"),
      ["tenantAdmin", "operator"],
      TENANT_ADMIN_ONLY,
      1,
      (v) => (v.body.tenant === T ? null : `the usage of ${String(v.body.tenant)}`),
    ),
    {
      op: "getTenantUsage",
      who: "tenantAdmin",
      resource: "?tenant=U",
      phase: 1,
      expect: forbidden("another tenant"),
      run: () => rest(key.tenantAdmin, "GET", `/v1/usage?tenant=${U}`),
    },
    {
      op: "getTenantUsage",
      who: "operator",
      resource: "?tenant=U",
      phase: 1,
      expect: "allow",
      run: () => rest(key.operator, "GET", `/v1/usage?tenant=${U}`),
      check: (v) => (v.body.tenant === U ? null : `the usage of ${String(v.body.tenant)}`),
    },
  ],
  // OAuth grants are a tenant's (docs/oauth.md#grants): its admins and operators; the probes
  // name no grant, so an allowed one answers an empty list or 404, a change to nothing.
  listOAuthGrants: () => [
    ...everyone(
      "listOAuthGrants",
      (who) => rest(key[who], "GET", "/v1/oauth/grants"),
      ["tenantAdmin", "operator"],
      TENANT_ADMIN_ONLY,
    ),
    {
      op: "listOAuthGrants",
      who: "tenantAdmin",
      resource: "?tenant=U",
      phase: 1,
      expect: forbidden("another tenant"),
      run: () => rest(key.tenantAdmin, "GET", `/v1/oauth/grants?tenant=${U}`),
    },
  ],
  revokeOAuthGrant: () =>
    everyone(
      "revokeOAuthGrant",
      (who) => rest(key[who], "DELETE", "/v1/oauth/grants/no-such-grant"),
      ["tenantAdmin", "operator"],
      TENANT_ADMIN_ONLY,
    ),
  getReadinessReport: () => operatorOnly("getReadinessReport", "GET", "/v1/admin/readiness"),
  refreshRegistry: () => operatorOnly("refreshRegistry", "POST", "/v1/admin/registry/refresh"),
  // Operators' probes name nothing that exists or send a bad value: past the role check, no change made.
  updateProvider: () => operatorOnly("updateProvider", "PATCH", "/v1/admin/providers/no-such-provider", {}),
  resetProviderHealth: () =>
    operatorOnly("resetProviderHealth", "DELETE", "/v1/admin/providers/no-such-provider/health"),
  deprecateToolVersion: () =>
    operatorOnly("deprecateToolVersion", "PUT", "/v1/admin/tools/no.such/versions/1.0.0/deprecation", {
      sunset: "2099-01-01T00:00:00Z",
    }),
  undeprecateToolVersion: () =>
    operatorOnly("undeprecateToolVersion", "DELETE", "/v1/admin/tools/no.such/versions/1.0.0/deprecation"),
  // Not a role's: only the deployment's BOOTSTRAP_TOKEN opens it, and no key is that token
  // (401; 403 bootstrap_used once another test of the stack has used it).
  bootstrapOperator: () =>
    WHO.map((who): Cell => ({
      op: "bootstrapOperator",
      who,
      resource: "-",
      phase: 1,
      expect: { status: 401, code: "unauthenticated" },
      run: async () => {
        const v = await rest(key[who], "POST", "/v1/admin/bootstrap", {});
        return v.status === 403 && v.reason === "bootstrap_used" ? { status: 401, code: "unauthenticated" } : v;
      },
    })),
  createApiKey: () => [
    ...everyone(
      "createApiKey",
      (who) => rest(key[who], "POST", "/v1/admin/keys", { tenant: tenantOf(who), agent: `made-by-${who}` }),
      ["tenantAdmin", "operator"],
      TENANT_ADMIN_ONLY,
      1,
      (v) => {
        minted.push(v.body.key_id);
        return v.body.role === "agent" ? null : `role ${v.body.role}`;
      },
    ),
    {
      op: "createApiKey",
      who: "tenantAdmin",
      resource: "tenant U",
      phase: 1,
      expect: forbidden("another tenant"),
      run: () => rest(key.tenantAdmin, "POST", "/v1/admin/keys", { tenant: U, agent: "sneaky" }),
    },
    {
      op: "createApiKey",
      who: "tenantAdmin",
      resource: "role admin",
      phase: 1,
      expect: OPERATOR_ONLY,
      run: () => rest(key.tenantAdmin, "POST", "/v1/admin/keys", { tenant: T, agent: "sneaky", role: "admin" }),
    },
  ],
  listApiKeys: () => [
    ...everyone(
      "listApiKeys",
      (who) => rest(key[who], "GET", "/v1/admin/keys"),
      ["tenantAdmin", "operator"],
      TENANT_ADMIN_ONLY,
    ),
    {
      op: "listApiKeys",
      who: "tenantAdmin",
      resource: "own tenant, no operator's",
      phase: 1,
      expect: "allow",
      run: () => rest(key.tenantAdmin, "GET", "/v1/admin/keys"),
      check: (v) =>
        (v.body.keys as { tenant: string; role: string }[]).every((k) => k.tenant === T && k.role !== "admin") &&
        v.body.keys.length >= 5
          ? null
          : "lists keys it may not see",
    },
    {
      op: "listApiKeys",
      who: "tenantAdmin",
      resource: "?tenant=U",
      phase: 1,
      expect: forbidden("another tenant"),
      run: () => rest(key.tenantAdmin, "GET", `/v1/admin/keys?tenant=${U}`),
    },
  ],
  revokeApiKey: () => [
    ...WHO.filter((w) => w !== "tenantAdmin" && w !== "operator").map((who): Cell => ({
      op: "revokeApiKey",
      who,
      resource: "spare key of T",
      phase: 1,
      expect: TENANT_ADMIN_ONLY,
      run: () => rest(key[who], "DELETE", `/v1/admin/keys/${keysToRevoke.T}`),
    })),
    {
      op: "revokeApiKey",
      who: "tenantAdmin",
      resource: "operator's key of T",
      phase: 1,
      expect: { status: 404, code: "not_found" },
      run: () => rest(key.tenantAdmin, "DELETE", `/v1/admin/keys/${keysToRevoke.opT}`),
    },
    {
      op: "revokeApiKey",
      who: "tenantAdmin",
      resource: "key of U",
      phase: 1,
      expect: { status: 404, code: "not_found" },
      run: () => rest(key.tenantAdmin, "DELETE", `/v1/admin/keys/${keysToRevoke.U}`),
    },
    {
      op: "revokeApiKey",
      who: "tenantAdmin",
      resource: "spare key of T",
      phase: 2,
      expect: "allow",
      run: () => rest(key.tenantAdmin, "DELETE", `/v1/admin/keys/${keysToRevoke.T}`),
    },
    {
      op: "revokeApiKey",
      who: "operator",
      resource: "key of U",
      phase: 2,
      expect: "allow",
      run: () => rest(key.operator, "DELETE", `/v1/admin/keys/${keysToRevoke.Ufresh}`),
    },
  ],
  listBundles: () => operatorOnly("listBundles", "GET", "/v1/admin/bundles"),
  getBundle: () => operatorOnly("getBundle", "GET", "/v1/admin/bundles/no-such-bundle"),
  // An empty body: the operator's answer is 400, so no cell leaves a bundle behind.
  putBundle: () => operatorOnly("putBundle", "PUT", "/v1/admin/bundles/no-such-bundle", {}),
  deleteBundle: () => operatorOnly("deleteBundle", "DELETE", "/v1/admin/bundles/no-such-bundle"),
  // A tenant's own bundles (docs/contract.md#bundles): its admins and operators. The probes name
  // no bundle and PUT an empty body, so an allowed cell answers 404 or 400 and changes nothing.
  listTenantBundles: () => [
    ...everyone(
      "listTenantBundles",
      (who) => rest(key[who], "GET", "/v1/bundles"),
      ["tenantAdmin", "operator"],
      TENANT_ADMIN_ONLY,
    ),
    {
      op: "listTenantBundles",
      who: "tenantAdmin",
      resource: "?tenant=U",
      phase: 1,
      expect: forbidden("another tenant"),
      run: () => rest(key.tenantAdmin, "GET", `/v1/bundles?tenant=${U}`),
    },
  ],
  getTenantBundle: () =>
    everyone(
      "getTenantBundle",
      (who) => rest(key[who], "GET", "/v1/bundles/no-such-bundle"),
      ["tenantAdmin", "operator"],
      TENANT_ADMIN_ONLY,
    ),
  putTenantBundle: () =>
    everyone(
      "putTenantBundle",
      (who) => rest(key[who], "PUT", "/v1/bundles/no-such-bundle", {}),
      ["tenantAdmin", "operator"],
      TENANT_ADMIN_ONLY,
    ),
  deleteTenantBundle: () =>
    everyone(
      "deleteTenantBundle",
      (who) => rest(key[who], "DELETE", "/v1/bundles/no-such-bundle"),
      ["tenantAdmin", "operator"],
      TENANT_ADMIN_ONLY,
    ),
  listUpstreams: () => operatorOnly("listUpstreams", "GET", "/v1/admin/upstreams"),
  registerUpstream: () => operatorOnly("registerUpstream", "POST", "/v1/admin/upstreams", {}),
  getUpstream: () => operatorOnly("getUpstream", "GET", "/v1/admin/upstreams/no-such-upstream"),
  removeUpstream: () => operatorOnly("removeUpstream", "DELETE", "/v1/admin/upstreams/no-such-upstream"),
  refreshUpstream: () => operatorOnly("refreshUpstream", "POST", "/v1/admin/upstreams/no-such-upstream/refresh"),
  approveUpstreamChange: () =>
    operatorOnly("approveUpstreamChange", "POST", "/v1/admin/upstreams/no-such-upstream/tools/x/approve", {}),
  rejectUpstreamChange: () =>
    operatorOnly("rejectUpstreamChange", "POST", "/v1/admin/upstreams/no-such-upstream/tools/x/reject", {}),
  getUpstreamCredential: () =>
    everyone(
      "getUpstreamCredential",
      (who) => rest(key[who], "GET", "/v1/upstreams/example/credential"),
      "all",
      OPERATOR_ONLY,
    ),
  putUpstreamCredential: () =>
    everyone(
      "putUpstreamCredential",
      (who) => rest(key[who], "PUT", "/v1/upstreams/example/credential", { token: `t-${who}` }),
      ["tenantAdmin", "operator"],
      TENANT_ADMIN_ONLY,
      2,
    ),
  deleteUpstreamCredential: () =>
    everyone(
      "deleteUpstreamCredential",
      (who) => rest(key[who], "DELETE", "/v1/upstreams/example/credential"),
      ["tenantAdmin", "operator"],
      TENANT_ADMIN_ONLY,
      2,
    ),
  // The operator's allow is not exercised here: it arms a failure of the next audit batch, shared by every test of the stack.
  armAuditDrill: () =>
    operatorOnly("armAuditDrill", "POST", "/v1/admin/audit/drill/fail-next-batch").filter((c) => c.who !== "operator"),
  armAuditBatchesDrill: () =>
    operatorOnly("armAuditBatchesDrill", "POST", "/v1/admin/audit/drill/fail-batches", { count: 0 }),
  getAuditDrills: () => operatorOnly("getAuditDrills", "GET", "/v1/admin/audit/drills"),
  listRefusalCounts: () => operatorOnly("listRefusalCounts", "GET", "/v1/audit/refusals"),
  armAuditSendDrill: () =>
    operatorOnly("armAuditSendDrill", "POST", "/v1/admin/audit/drill/fail-next-send", { count: 0 }),
};

function judge(cell: Cell, v: Verdict): string | null {
  const e = cell.expect;
  if (e === "allow") {
    if (v.status === 401 || v.status === 403 || v.status >= 500)
      return `refused ${v.status} ${v.code ?? ""} ${v.reason ?? ""}`;
    return cell.check ? cell.check(v) : null;
  }
  if (v.status !== e.status) return `${v.status} ${v.code ?? ""} ${v.reason ?? ""}, expected ${e.status}`;
  if (e.status === 403 && (v.code !== "forbidden" || v.reason !== e.reason))
    return `403 ${v.code} reason ${JSON.stringify(v.reason)}, expected forbidden reason ${JSON.stringify(e.reason)}`;
  if (e.status !== 403 && v.code !== e.code) return `${v.status} code ${v.code}, expected ${e.code}`;
  return null;
}

describe("the privilege matrix", () => {
  it("has an expectation row for every operation of the OpenAPI document, and none for an operation it lacks", async () => {
    const doc = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const operations = Object.values(doc.paths).flatMap((item) =>
      Object.entries(item)
        .filter(([m]) => m !== "parameters")
        .map(([, op]) => op.operationId),
    );
    expect(operations.every((id) => typeof id === "string")).toBe(true);
    expect(Object.keys(ROWS).sort()).toEqual([...new Set(operations as string[])].sort());
  });

  it("allows nothing it should not, and refuses with the right code: 403 forbidden with a reason, or 404 where existence must not leak", async () => {
    const cells = Object.values(ROWS).flatMap((row) => row());
    const wrong: string[] = [];
    const judgeAll = async (phase: 1 | 2) => {
      for (const cell of cells.filter((c) => c.phase === phase)) {
        const problem = judge(cell, await cell.run());
        if (problem) wrong.push(`${cell.op} as ${cell.who} on ${cell.resource}: ${problem}`);
      }
    };
    await judgeAll(1);
    // No refusal changed anything: every run still runs, every call still awaits its approver.
    const unchanged = async (what: string, read: Promise<Verdict>, pick: (v: Verdict) => unknown, want: unknown) => {
      const got = pick(await read);
      if (got !== want)
        wrong.push(`after the refusals, ${what} is ${JSON.stringify(got)}, not ${JSON.stringify(want)}`);
    };
    for (const r of ["A", "B", "X"] as const)
      await unchanged(
        `run ${r}`,
        rest(key[ownerOfRun[r]], "GET", `/v1/executions/${run[r]}`),
        (v) => v.body.status,
        "running",
      );
    for (const [p, owner] of [
      ["A1", "agent"],
      ["A2", "agent"],
      ["J", "approver"],
      ["X", "stranger"],
    ] as const) {
      await unchanged(
        `pending ${p}`,
        rest(key[owner], "GET", `/v1/executions/${pend[p]}`),
        (v) => v.body.status,
        "awaiting_approval",
      );
    }
    await unchanged(
      "the tenant's upstream token",
      rest(key.agent, "GET", "/v1/upstreams/example/credential"),
      (v) => v.body.stored,
      false,
    );
    await judgeAll(2);
    console.log(
      `privilege matrix: ${cells.length} cells over ${Object.keys(ROWS).length} operations, ${wrong.length} unexpected`,
    );
    expect(wrong).toEqual([]);
  }, 240_000);
});
