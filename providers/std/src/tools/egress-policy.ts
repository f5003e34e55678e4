/**
 * The std provider's egress settings for `http.request`, read once when the provider loads
 * (STYLE 5); a malformed value fails the provider's start, not a call.
 *
 *   EGRESS_PORTS  ports a URL may name, comma-separated; default "80,443"
 *   EGRESS_ALLOW  exact host:port entries that skip the address rules (loopback, private...).
 *                 Empty in every configuration that ships; the e2e stack sets it to reach the
 *                 loopback server its tests start. Not a wildcard: each entry names one port.
 */
export interface EgressPolicy {
  ports: ReadonlySet<number>;
  /** Canonical "host:port" (IPv6 hosts in brackets, as URL.hostname gives them). */
  allow: ReadonlySet<string>;
}

export const DEFAULT_PORTS: readonly number[] = [80, 443];
export const DEFAULT_EGRESS: EgressPolicy = { ports: new Set(DEFAULT_PORTS), allow: new Set() };

/** Lower case, every trailing dot removed ("localhost.." is localhost). */
export function canonicalHost(hostname: string): string {
  let end = hostname.length;
  while (end > 0 && hostname.charCodeAt(end - 1) === 0x2e) end--;
  return hostname.slice(0, end).toLowerCase();
}

export interface EgressVars {
  EGRESS_PORTS?: unknown;
  EGRESS_ALLOW?: unknown;
}

export function egressPolicyFrom(vars: EgressVars): EgressPolicy {
  return { ports: readPorts(vars.EGRESS_PORTS), allow: readAllow(vars.EGRESS_ALLOW) };
}

const entries = (value: string) => value.split(/[\s,]+/).filter((e) => e !== "");

function readPorts(value: unknown): ReadonlySet<number> {
  if (value === undefined || value === "") return new Set(DEFAULT_PORTS);
  if (typeof value !== "string") throw new Error("EGRESS_PORTS must be a comma-separated list of ports");
  const ports = entries(value).map((entry) => {
    const port = /^\d{1,5}$/.test(entry) ? Number(entry) : NaN;
    if (!(port >= 1 && port <= 65535)) throw new Error(`EGRESS_PORTS: ${JSON.stringify(entry)} is not a port`);
    return port;
  });
  return new Set(ports);
}

function readAllow(value: unknown): ReadonlySet<string> {
  if (value === undefined || value === "") return new Set();
  if (typeof value !== "string") throw new Error("EGRESS_ALLOW must be a comma-separated list of host:port");
  return new Set(
    entries(value).map((entry) => {
      let url: URL;
      try {
        url = new URL(`http://${entry}`);
      } catch {
        throw new Error(`EGRESS_ALLOW: ${JSON.stringify(entry)} is not a host:port`);
      }
      // Exactly host:port: no path, no credentials, and a port written out (never implied).
      const bare =
        url.pathname === "/" && url.search === "" && url.hash === "" && url.username === "" && url.password === "";
      if (!bare || !/:\d+$/.test(entry)) {
        throw new Error(`EGRESS_ALLOW: ${JSON.stringify(entry)} must be exactly host:port`);
      }
      const host = canonicalHost(url.hostname);
      // A literal name or address only: "*" and the like are not patterns here, so refuse them.
      if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)$/.test(host))
        throw new Error(`EGRESS_ALLOW: ${JSON.stringify(entry)} is not a host name or address`);
      return `${host}:${url.port === "" ? 80 : Number(url.port)}`;
    }),
  );
}
