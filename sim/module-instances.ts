/**
 * One copy of the project's modules per simulated isolate. An isolate of the edge keeps its
 * state in module variables (the snapshot cache, the health batch), so a simulated isolate
 * must have modules of its own: `loadInstance(path, tag)` imports `path?sim-isolate=<tag>`,
 * and a resolve hook passes the tag on to every project module it imports (not to
 * node_modules), so each tag gets a whole module graph of its own, state included.
 */
import { registerHooks } from "node:module";

const root = new URL("../", import.meta.url).href;
const TAG = "sim-isolate";
let registered = false;

function register(): void {
  if (registered) return;
  registered = true;
  registerHooks({
    resolve(specifier, context, next) {
      const resolved = next(specifier, context);
      const tag = context.parentURL?.startsWith(root) ? new URL(context.parentURL).searchParams.get(TAG) : null;
      if (tag === null || !resolved.url.startsWith(root) || resolved.url.includes("/node_modules/")) return resolved;
      const url = new URL(resolved.url);
      url.searchParams.set(TAG, tag);
      return { ...resolved, url: url.href };
    },
  });
}

/** The module at `path` (relative to sim/), in the copy of the module graph that belongs to `tag`. */
export async function loadInstance<T>(path: string, tag: string): Promise<T> {
  register();
  const url = new URL(path, import.meta.url);
  url.searchParams.set(TAG, tag);
  return (await import(url.href)) as T;
}
