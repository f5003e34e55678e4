/**
 * The OpenAPI document passes Redocly's linter with its recommended rules (redocly.yaml),
 * with no error and no warning. The CLI runs offline: telemetry and the update check are off.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../src/openapi/document.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const cli = join(dirname(createRequire(import.meta.url).resolve("@redocly/cli/package.json")), "bin", "cli.js");

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

async function lint(document: object): Promise<LintReport> {
  const dir = mkdtempSync(join(tmpdir(), "openapi-lint-"));
  try {
    const file = join(dir, "openapi.json");
    writeFileSync(file, JSON.stringify(document));
    // Exit code 1 means "problems found"; the JSON report says which.
    const run = promisify(execFile)(
      process.execPath,
      [cli, "lint", file, "--config", join(root, "redocly.yaml"), "--format", "json"],
      {
        cwd: root,
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
        timeout: 60_000,
      },
    );
    const { stdout } = await run.catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? "" }));
    return JSON.parse(stdout) as LintReport;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const readable = (r: LintReport) =>
  r.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);

describe("the OpenAPI document", () => {
  it("passes Redocly's recommended rules with no error and no warning", async () => {
    const report = await lint(openApiDocument);
    expect(readable(report)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it("is reported by the linter when a required property is left undefined", async () => {
    // The check can fail: the issue's own example (a `required` property never defined).
    const broken = structuredClone(openApiDocument) as any;
    broken.components.schemas.ExecutionList.properties.executions.items.required.push("position");
    const report = await lint(broken);
    const found = readable(report);
    expect(found.filter((p) => p.includes("no-required-schema-properties-undefined"))).toHaveLength(1);
    // The document's example of the list (src/openapi/examples-executions.ts) now lacks the property too:
    // Redocly holds examples to their schemas as well, and says so for each listed execution.
    expect(found.filter((p) => !p.includes("no-required-schema-properties-undefined"))).toEqual([
      expect.stringMatching(
        /^warn no-invalid-media-type-examples at #\/paths\/~1v1~1executions\/get\/.* must have required property 'position'/,
      ),
      expect.stringMatching(
        /^warn no-invalid-media-type-examples at #\/paths\/~1v1~1executions\/get\/.* must have required property 'position'/,
      ),
    ]);
  }, 60_000);
});
