/** The plan as the operator reads it: numbered sections, each step with its exact command. */
import type { Phase, Plan } from "./plan.ts";

const TITLES: Record<Phase, string> = {
  account: "Account",
  secrets: "Secrets (checked before anything is uploaded)",
  resources: "Resources",
  migrations: "D1 migrations (before the runtime is deployed)",
  deploy: "Workers, in deploy order",
};

/** A command as the operator would type it. */
export const shell = (argv: string[]) => `npx ${argv.join(" ")}`;

export function renderPlan(plan: Plan, dryRun: boolean): string {
  const lines = [
    `Deploy plan for ${plan.env ? `environment "${plan.env}"` : "the default environment (no --env)"}${dryRun ? " (dry run: the account is not asked, nothing is uploaded)" : ""}`,
  ];
  lines.push(`Workers: ${plan.workers.map((w) => `${w.name} (${w.config})`).join(", ")}`);
  let n = 0;
  for (const phase of Object.keys(TITLES) as Phase[]) {
    const steps = plan.steps.filter((s) => s.phase === phase);
    if (steps.length === 0) continue;
    lines.push("", `${++n}. ${TITLES[phase]}`);
    for (const s of steps) {
      lines.push(`   - ${s.what}${s.state ? ` [${s.state}]` : ""}`);
      if (s.command) lines.push(`     $ ${shell(s.command)}`);
      if (s.check) lines.push(`     (checked with $ ${shell(s.check)})`);
    }
  }
  if (plan.missingSecrets.length > 0) {
    lines.push(
      "",
      dryRun
        ? "Required secrets: set each once per environment before the first deploy (on a Worker not deployed yet, `secret put` first creates an empty Worker of that name):"
        : "Missing secrets: set each, then run the deploy again (on a Worker not deployed yet, `secret put` first creates an empty Worker of that name):",
    );
    for (const c of plan.missingSecrets) lines.push(`   $ ${shell(c)}`);
  }
  for (const o of plan.optionalMissing)
    lines.push("", `Optional secret${dryRun ? "" : " not set"}: without it ${o.why}:`, `   $ ${shell(o.command)}`);
  if (plan.problems.length > 0) lines.push("", "Configuration problems:", ...plan.problems.map((p) => `   ✗ ${p}`));
  return lines.join("\n");
}
