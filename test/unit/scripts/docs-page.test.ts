/**
 * The API reference page (/docs/) that `npm run build:docs` writes: it exists after the build,
 * names every operation with its summary and shows the examples, and loads nothing but its
 * own stylesheet (no script, nothing from another origin).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildDocs } from "../../../scripts/build-docs.ts";
import { renderReference } from "../../../scripts/docs/render-reference.ts";
import { openApiDocument } from "../../../src/openapi/document.ts";

const out = mkdtempSync(join(tmpdir(), "docs-page-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const doc = JSON.parse(JSON.stringify(openApiDocument));
const escaped = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
/** The document's prose as the page shows it: escaped, `code` spans as <code>. */
const shown = (s: string) => escaped(s).replace(/`([^`]+)`/g, "<code>$1</code>");

describe("the API reference page", () => {
  it("is written by the build with its stylesheet", () => {
    const page = buildDocs(out);
    expect(page).toBe(join(out, "index.html"));
    expect(existsSync(page)).toBe(true);
    expect(existsSync(join(out, "style.css"))).toBe(true);
    expect(readFileSync(page, "utf8")).toMatch(/^<!doctype html>/);
  });

  it("has a section for every operation, with its method, path and summary", () => {
    const html = renderReference(doc);
    const missing: string[] = [];
    for (const [path, item] of Object.entries(
      doc.paths as Record<string, Record<string, { operationId: string; summary: string }>>,
    )) {
      for (const [method, op] of Object.entries(item)) {
        if (!op?.operationId) continue;
        const section = html.slice(html.indexOf(`id="${op.operationId}"`));
        if (
          !html.includes(`id="${op.operationId}"`) ||
          !section.includes(shown(op.summary)) ||
          !section.includes(`${method.toUpperCase()}</span> <code>${escaped(path)}</code>`)
        )
          missing.push(`${method} ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("shows the examples and links each schema it names", () => {
    const html = renderReference(doc);
    expect(html).toContain("Example request: Run a tool and wait for its result");
    expect(html).toContain(escaped(JSON.stringify({ expression: "6 * 7" }, null, 2)).split("\n")[1]);
    const linked = [...html.matchAll(/href="#schema-([A-Za-z]+)"/g)].map((m) => m[1]);
    expect(linked.length).toBeGreaterThan(0);
    for (const name of new Set(linked)) expect(html).toContain(`id="schema-${name}"`);
  });

  it("loads no script and nothing from elsewhere", () => {
    const html = renderReference(doc);
    expect(html).not.toMatch(/<script/i);
    const loaded = [...html.matchAll(/<(?:link|img|iframe)[^>]+(?:href|src)="([^"]+)"/g)].map((m) => m[1]);
    expect(loaded).toEqual(["style.css"]);
    expect(html).toContain(`content="default-src 'none'; style-src 'self'`);
  });
});
