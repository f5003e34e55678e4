/**
 * Which methods a path answers, for `405 Method Not Allowed` and its `Allow` header
 * (RFC 9110 §15.5.6): read from the app's own route table, so a route added anywhere is known
 * here without a second list. Middleware and catch-all routes (`use`, `all`: method "ALL")
 * say nothing about methods and are left out.
 */

interface Route {
  path: string;
  method: string;
}

const compiled = new WeakMap<readonly Route[], { pattern: RegExp; method: string }[]>();

/** The methods `path` answers, sorted (HEAD wherever GET is: Hono answers HEAD from GET); empty for an unknown path. */
export function allowedMethods(routes: readonly Route[], path: string): string[] {
  let table = compiled.get(routes);
  if (!table) {
    table = routes
      .filter((r) => r.method !== "ALL" && !r.path.includes("*"))
      .map((r) => ({ pattern: patternOf(r.path), method: r.method }));
    compiled.set(routes, table);
  }
  const methods = new Set(table.filter((r) => r.pattern.test(path)).map((r) => r.method));
  if (methods.has("GET")) methods.add("HEAD");
  return [...methods].sort();
}

/** A Hono path (`/v1/executions/:id`) as an anchored expression; a parameter is one segment. */
function patternOf(path: string): RegExp {
  const source = path
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${source}$`);
}
