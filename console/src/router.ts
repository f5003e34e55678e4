/**
 * Hash routes (`#/tools/math.evaluate`): the console is static files under /console/, so
 * routes live after the `#` and the server never has to answer for them.
 */
import { useEffect, useState } from "preact/hooks";

export interface Route {
  /** Path segments after `#/`, decoded. */
  parts: string[];
  query: URLSearchParams;
}

export function currentRoute(): Route {
  const raw = location.hash.replace(/^#\/?/, "");
  const [path, search = ""] = raw.split("?");
  return { parts: path.split("/").filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(search) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const onChange = () => setRoute(currentRoute());
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return route;
}

/** `href("tools", "math.evaluate")` → `#/tools/math.evaluate`. */
export function href(...parts: string[]): string {
  return `#/${parts.map(encodeURIComponent).join("/")}`;
}

export function go(...parts: string[]): void {
  location.hash = href(...parts);
}
