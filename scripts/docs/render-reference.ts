/**
 * The API reference page (/docs/) from the OpenAPI document: plain HTML, no script, nothing
 * fetched from elsewhere, so it reads the same offline, behind a strict CSP and in a terminal
 * browser. Redocly's build-docs was tried first: its page draws the operations with a script
 * from a CDN at view time, which offline shows none of them. Pure: document in, HTML out.
 */

type Json = Record<string, any>;

const esc = (s: unknown) =>
  String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
/** The document's prose: `code` spans and nothing else (it has no other markdown). */
const prose = (s: string | undefined) => (s ? esc(s).replace(/`([^`]+)`/g, "<code>$1</code>") : "");
const METHODS = ["get", "put", "post", "patch", "delete"];
const refName = (ref: string) => ref.split("/").pop()!;
const schemaLink = (name: string) => `<a href="#schema-${esc(name)}">${esc(name)}</a>`;

export interface Operation {
  method: string;
  path: string;
  op: Json;
  parameters: Json[];
}

/** Every operation, grouped by its first tag, in the document's tag order. */
export function operationsByTag(doc: Json): Map<string, Operation[]> {
  const groups = new Map<string, Operation[]>((doc.tags ?? []).map((t: Json) => [t.name as string, []]));
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const method of METHODS.filter((m) => m in item)) {
      const op = item[method];
      const tag = op.tags?.[0] ?? "other";
      if (!groups.has(tag)) groups.set(tag, []);
      groups.get(tag)!.push({ method, path, op, parameters: [...(item.parameters ?? []), ...(op.parameters ?? [])] });
    }
  }
  return groups;
}

/** A schema in a few words: a link for a $ref, the type with its enum or items otherwise. */
export function typeOf(schema: Json | undefined): string {
  if (!schema || Object.keys(schema).length === 0) return "any";
  if (schema.$ref) return schemaLink(refName(schema.$ref));
  if (schema.oneOf) return schema.oneOf.map(typeOf).join(" or ");
  if (schema.allOf) return schema.allOf.map(typeOf).join(" and ");
  if (schema.const !== undefined) return `<code>${esc(JSON.stringify(schema.const))}</code>`;
  if (schema.enum)
    return `one of ${schema.enum.map((v: unknown) => `<code>${esc(JSON.stringify(v))}</code>`).join(", ")}`;
  const types = ([] as string[]).concat(schema.type ?? "any");
  return types
    .map((t) => {
      if (t === "array") return `array of ${typeOf(schema.items)}`;
      if (
        t === "object" &&
        schema.additionalProperties &&
        typeof schema.additionalProperties === "object" &&
        !schema.properties
      )
        return `object of ${typeOf(schema.additionalProperties)}`;
      return (
        t +
        (schema.format ? ` (${esc(schema.format)})` : "") +
        (schema.pattern ? ` matching <code>${esc(schema.pattern)}</code>` : "")
      );
    })
    .join(" or ");
}

function propertiesTable(schema: Json, caption: string): string {
  const required = new Set<string>(schema.required ?? []);
  const rows = Object.entries(schema.properties as Json).map(
    ([name, p]) =>
      `<tr><th scope="row"><code>${esc(name)}</code>${required.has(name) ? "" : ' <span class="muted">optional</span>'}</th><td>${typeOf(p)}</td><td>${prose(p.description)}</td></tr>`,
  );
  return `<table><caption>${esc(caption)}</caption><thead><tr><th scope="col">Property</th><th scope="col">Type</th><th scope="col">Meaning</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function examples(media: Json, what: string): string {
  const shown = media.examples
    ? Object.values(media.examples as Json).map((e: Json) => [e.summary as string, e.value])
    : media.example !== undefined
      ? [["", media.example]]
      : [];
  return shown
    .map(([summary, value]) => {
      const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
      return `<figure class="example"><figcaption>${esc(what)}${summary ? `: ${esc(summary)}` : ""}</figcaption><pre>${esc(text)}</pre></figure>`;
    })
    .join("");
}

const mainMedia = (content: Json) => content["application/json"] ?? Object.values(content)[0];
const mediaTypes = (content: Json) =>
  Object.keys(content)
    .map((t) => `<code>${esc(t)}</code>`)
    .join(", ");

function operation(doc: Json, { method, path, op, parameters }: Operation): string {
  const parts = [
    `<h3><span class="method method-${method}">${method.toUpperCase()}</span> <code>${esc(path)}</code></h3>`,
    `<p class="summary">${prose(op.summary)}</p>`,
  ];
  if (op.description) parts.push(`<p>${prose(op.description)}</p>`);
  if (op.security && op.security.length === 0) parts.push('<p class="muted">No credential needed.</p>');
  if (parameters.length > 0) {
    const rows = parameters.map(
      (p) =>
        `<tr><th scope="row"><code>${esc(p.name)}</code>${p.required ? "" : ' <span class="muted">optional</span>'}</th><td>${esc(p.in)}</td><td>${typeOf(p.schema)}</td><td>${prose(p.description)}</td></tr>`,
    );
    parts.push(
      `<table><caption>Parameters</caption><thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Type</th><th scope="col">Meaning</th></tr></thead><tbody>${rows.join("")}</tbody></table>`,
    );
  }
  if (op.requestBody) {
    const media = mainMedia(op.requestBody.content);
    parts.push(
      `<h4>Request body${op.requestBody.required ? "" : " (optional)"}</h4><p>${typeOf(media.schema)} as ${mediaTypes(op.requestBody.content)}</p>`,
      examples(media, "Example request"),
    );
  }
  const rows: string[] = [];
  let shownExample = "";
  for (const [status, given] of Object.entries(op.responses as Json)) {
    const response: Json = given.$ref ? doc.components.responses[refName(given.$ref)] : given;
    const error = given.$ref ? ` <a href="#errors">(error codes)</a>` : "";
    const description = given.$ref ? "" : prose(response.description);
    rows.push(
      `<tr><th scope="row">${esc(status)}</th><td>${response.content ? typeOf(mainMedia(response.content).schema) : "no body"}${error}</td><td>${description}</td></tr>`,
    );
    if (!shownExample && /^2/.test(status) && response.content)
      shownExample = examples(mainMedia(response.content), `Example answer (${status})`);
  }
  parts.push(
    `<table><caption>Answers</caption><thead><tr><th scope="col">Status</th><th scope="col">Body</th><th scope="col">When</th></tr></thead><tbody>${rows.join("")}</tbody></table>`,
    shownExample,
  );
  return `<section class="operation" id="${esc(op.operationId)}">${parts.join("\n")}</section>`;
}

/** The whole page. `stylesheet` is the URL of its CSS, beside it. */
export function renderReference(doc: Json, stylesheet = "style.css"): string {
  const groups = operationsByTag(doc);
  const tagInfo = new Map<string, Json>((doc.tags ?? []).map((t: Json) => [t.name, t]));
  const toc = [...groups]
    .map(
      ([tag, ops]) =>
        `<li><a href="#tag-${esc(tag)}">${esc(tag)}</a><ul>${ops.map(({ method, path, op }) => `<li><a href="#${esc(op.operationId)}"><span class="method method-${method}">${method.toUpperCase()}</span> ${esc(path)}</a></li>`).join("")}</ul></li>`,
    )
    .join("");
  const body = [...groups].map(
    ([tag, ops]) =>
      `<section id="tag-${esc(tag)}"><h2>${esc(tag)}</h2><p>${prose(tagInfo.get(tag)?.description)}</p>${ops.map((o) => operation(doc, o)).join("\n")}</section>`,
  );
  const errors = Object.entries(doc.components.responses as Json).map(
    ([name, r]) => `<dt>${esc(name.replace(/^Error/, "HTTP "))}</dt><dd>${prose(r.description)}</dd>`,
  );
  const schemas = Object.entries(doc.components.schemas as Json).map(
    ([name, s]) =>
      `<section class="schema" id="schema-${esc(name)}"><h3>${esc(name)}</h3>${s.description ? `<p>${prose(s.description)}</p>` : ""}${s.properties ? propertiesTable(s, `${name}'s properties`) : `<p>${typeOf(s)}</p>`}</section>`,
  );
  const csp = "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)} API reference</title>
<link rel="stylesheet" href="${esc(stylesheet)}">
</head>
<body>
<nav aria-label="Operations"><p class="brand">${esc(doc.info.title)} <span class="muted">${esc(doc.info.version)}</span></p><ul>${toc}<li><a href="#errors">Errors</a></li><li><a href="#schemas">Schemas</a></li></ul></nav>
<main>
<h1>${esc(doc.info.title)} API reference</h1>
<p>${prose(doc.info.description)}</p>
<p>Authentication: <code>Authorization: Bearer &lt;key&gt;</code> (${prose(doc.components.securitySchemes?.bearer?.description)}). The machine-readable document: <a href="/v1/openapi.json"><code>/v1/openapi.json</code></a>.</p>
${body.join("\n")}
<section id="errors"><h2>Errors</h2><p>Every error is one envelope, <a href="#schema-ErrorEnvelope">ErrorEnvelope</a>; its <code>error.code</code> decides the status:</p><dl>${errors.join("")}</dl></section>
<section id="schemas"><h2>Schemas</h2>${schemas.join("\n")}</section>
</main>
</body>
</html>
`;
}
