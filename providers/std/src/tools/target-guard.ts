/**
 * Which URLs `http.request` may reach: public http(s) hosts on allowed ports, never the
 * provider's own neighbourhood (loopback, private networks, cloud metadata, internal names).
 * Pure, so every refused spelling can be tested without a network.
 *
 * Expects a WHATWG `URL`: its parser already turns 2130706433, 0177.0.0.1, 0x7f.0.0.1 and
 * 127.1 into "127.0.0.1" and ::ffff:127.0.0.1 into "[::ffff:7f00:1]", so only canonical
 * forms reach the classifiers below; the IPv4 reader still accepts the other spellings in
 * case a hostname arrives from elsewhere. Every check is linear in the host's length.
 *
 * What a literal-address guard cannot see: a public name whose DNS answer is a private
 * address, or one that changes its answer between checks (DNS rebinding). Workers have no
 * DNS API to resolve a host before `fetch` connects to it. README "http.request and egress".
 */
import { canonicalHost, DEFAULT_EGRESS, type EgressPolicy } from "./egress-policy.ts";

export type TargetCheck = { ok: true } | { ok: false; reason: string };

/** DNS's own limit; a longer name cannot resolve, so it is refused before anything else. */
const MAX_NAME_LENGTH = 253;

export function checkTarget(url: URL, policy: EgressPolicy = DEFAULT_EGRESS): TargetCheck {
  if (url.protocol !== "http:" && url.protocol !== "https:") return refuse("scheme_not_allowed");
  const host = canonicalHost(url.hostname);
  if (host === "") return refuse("missing_host");
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  // An operator's exact host:port entry (test stacks only) passes the address rules below.
  if (policy.allow.has(`${host}:${port}`)) return { ok: true };
  const hostVerdict = classifyHost(host);
  if (hostVerdict !== null) return refuse(hostVerdict);
  if (!policy.ports.has(port)) return refuse("port_not_allowed");
  return { ok: true };
}

const refuse = (reason: string): TargetCheck => ({ ok: false, reason });

function classifyHost(host: string): string | null {
  if (host.startsWith("[")) return classifyIPv6(host.slice(1, -1));
  const ipv4 = parseIPv4(host);
  if (ipv4 !== null) return classifyIPv4(ipv4);
  return classifyName(host);
}

/**
 * Names that only mean something inside a network: RFC 6761/6762 special-use names, ICANN's
 * reserved `.internal`, cluster and home-network suffixes. Longest suffixes first.
 */
const NAME_SUFFIXES: [string, string][] = [
  ["localhost", "loopback"],
  ["cluster.local", "internal_name"], // Kubernetes
  ["local", "local_network_name"], // mDNS (RFC 6762)
  ["internal", "internal_name"], // ICANN reserved for private use; metadata.google.internal
  ["home.arpa", "internal_name"], // RFC 8375
  ["svc", "internal_name"], // kubernetes.default.svc
  ["intranet", "internal_name"],
  ["corp", "internal_name"],
  ["home", "internal_name"],
  ["lan", "internal_name"],
  ["localdomain", "internal_name"],
  ["arpa", "special_use_name"], // reverse-lookup zones, no web there
  ["test", "special_use_name"], // RFC 6761
  ["invalid", "special_use_name"],
  ["example", "special_use_name"], // the TLD, not example.com
  ["onion", "special_use_name"], // RFC 7686
  ["alt", "special_use_name"], // RFC 9476
];

function classifyName(host: string): string | null {
  if (host.length > MAX_NAME_LENGTH) return "name_too_long";
  if (host.startsWith(".") || host.includes("..")) return "malformed_name";
  for (const [suffix, reason] of NAME_SUFFIXES) {
    if (host === suffix || (host.endsWith(suffix) && host.charCodeAt(host.length - suffix.length - 1) === 0x2e))
      return reason;
  }
  // "metadata", "kubernetes", "router": resolved through a search domain, i.e. inward.
  if (!host.includes(".")) return "single_label_name";
  return null;
}

/**
 * IANA IPv4 Special-Purpose Address Registry (RFC 6890 and updates), plus the cloud metadata
 * addresses: [first address, prefix length, reason]. First match wins, so specific ranges
 * come first. Ranges marked globally reachable there but useless as an HTTP target (AS112,
 * AMT, the old 6to4 relay) are refused too.
 */
const IPV4_REFUSED: [string, number, string][] = [
  ["169.254.169.254", 32, "cloud_metadata"], // AWS, GCP, Azure, OpenStack
  ["168.63.129.16", 32, "cloud_metadata"], // Azure wire server (a public address)
  ["100.100.100.200", 32, "cloud_metadata"], // Alibaba Cloud
  ["255.255.255.255", 32, "broadcast"],
  ["0.0.0.0", 32, "unspecified"],
  ["0.0.0.0", 8, "this_network"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared_address_space"], // carrier-grade NAT
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link_local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"], // IETF protocol assignments (DS-Lite, PCP, NAT64 discovery)
  ["192.0.2.0", 24, "reserved"], // documentation
  ["192.31.196.0", 24, "reserved"], // AS112
  ["192.52.193.0", 24, "reserved"], // AMT
  ["192.88.99.0", 24, "reserved"], // deprecated 6to4 relay anycast
  ["192.168.0.0", 16, "private"],
  ["192.175.48.0", 24, "reserved"], // AS112 direct delegation
  ["198.18.0.0", 15, "reserved"], // benchmarking
  ["198.51.100.0", 24, "reserved"], // documentation
  ["203.0.113.0", 24, "reserved"], // documentation
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

const IPV4_RANGES = IPV4_REFUSED.map(([first, prefix, reason]) => ({
  network: parseIPv4(first)!,
  mask: prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0,
  reason,
}));

function classifyIPv4(address: number): string | null {
  return IPV4_RANGES.find(({ network, mask }) => (address & mask) >>> 0 === network)?.reason ?? null;
}

/**
 * The WHATWG / inet_aton reading of an IPv4 host: 1 to 4 parts, each decimal, 0-octal or
 * 0x-hex, the last part filling the remaining bytes. Null when `host` is not an address.
 */
function parseIPv4(host: string): number | null {
  const parts = host.split(".", 5);
  if (parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    if (part.length > 12) return null; // no valid part is longer (0x + 8 hex digits, 10 decimal)
    let value: number;
    if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) value = parseInt(part, 8);
    else if (/^(0|[1-9]\d*)$/.test(part)) value = Number(part);
    else return null;
    numbers.push(value);
  }
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255) || last >= 256 ** (4 - numbers.length)) return null;
  return numbers.reduce((sum, n, i) => sum + n * 256 ** (3 - i), 0) + last;
}

/** Eight 16-bit groups, or null when `text` is not an IPv6 address. */
function parseIPv6(text: string): number[] | null {
  if (text.length > 45) return null; // the longest form: 6 groups and a dotted IPv4 tail
  let rest = text;
  const zone = rest.indexOf("%");
  if (zone >= 0) rest = rest.slice(0, zone); // a zone id does not change which network it is
  // A dotted IPv4 tail (::ffff:127.0.0.1) stands for the last two groups.
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(rest);
  if (dotted) {
    const v4 = parseIPv4(dotted[1]);
    if (v4 === null) return null;
    rest = `${rest.slice(0, dotted.index + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = rest.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string) => (half === "" ? [] : half.split(":"));
  const head = groups(halves[0]);
  const back = halves.length === 2 ? groups(halves[1]) : [];
  if (![...head, ...back].every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return null;
  const known = head.length + back.length;
  if (halves.length === 1 ? known !== 8 : known > 7) return null;
  const hex = (g: string) => parseInt(g, 16);
  return [...head.map(hex), ...new Array<number>(8 - known).fill(0), ...back.map(hex)];
}

/**
 * IANA IPv6 Special-Purpose Address Registry. Forms that carry an IPv4 address to a
 * translator (mapped, compatible, SIIT, NAT64 well-known prefix, 6to4) are judged by that
 * address; Teredo and local-use NAT64 carry one we cannot vet, so they are refused; and
 * anything outside 2000::/3, the only block IANA allocates for global unicast, is refused.
 */
function classifyIPv6(text: string): string | null {
  const g = parseIPv6(text);
  if (g === null) return "unparsable_address";
  const embeddedIPv4 = ((g[6] << 16) >>> 0) + g[7];
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return "unspecified";
  if (zeroUpTo(7) && g[7] === 1) return "loopback";
  // ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (SIIT, RFC 7915) and ::a.b.c.d (compatible).
  if (zeroUpTo(5) && g[5] === 0xffff) return classifyIPv4(embeddedIPv4);
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return classifyIPv4(embeddedIPv4);
  if (zeroUpTo(6)) return classifyIPv4(embeddedIPv4);
  // 64:ff9b::/96 NAT64 translates to the embedded IPv4 address (RFC 6052).
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return classifyIPv4(embeddedIPv4);
  // 64:ff9b:1::/48 local-use NAT64 (RFC 8215): the IPv4 address may sit anywhere in it.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "nat64_local";
  // 2002::/16 (6to4) carries an IPv4 address in groups 1 and 2.
  if (g[0] === 0x2002) return classifyIPv4(((g[1] << 16) >>> 0) + g[2]);
  // 2001::/32 Teredo tunnels to an IPv4 client whose address is obfuscated in the last groups.
  if (g[0] === 0x2001 && g[1] === 0) return "teredo";
  if (g[0] === 0x2001 && g[1] < 0x200) return "reserved"; // 2001::/23 IETF protocol assignments
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "reserved"; // documentation
  if (g[0] === 0x3fff && g[1] < 0x1000) return "reserved"; // 3fff::/20 documentation (RFC 9637)
  if (g[0] === 0x5f00) return "reserved"; // SRv6 SIDs (RFC 9602)
  if ((g[0] & 0xfe00) === 0xfc00) return "unique_local";
  if ((g[0] & 0xffc0) === 0xfe80) return "link_local";
  if ((g[0] & 0xffc0) === 0xfec0) return "site_local";
  if ((g[0] & 0xff00) === 0xff00) return "multicast";
  if (g[0] === 0x100 && g[1] === 0 && g[2] === 0 && (g[3] === 0 || g[3] === 1)) return "discard"; // 100::/64, 100:0:0:1::/64
  if ((g[0] & 0xe000) !== 0x2000) return "not_global_unicast";
  return null;
}
