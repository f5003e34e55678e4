/**
 * Which URLs `http.request` may reach: public http(s) hosts only, never the provider's own
 * neighbourhood (loopback, private networks, cloud metadata). Pure, so every refused
 * spelling can be tested without a network.
 *
 * Expects a WHATWG `URL`: its parser already turns 2130706433, 0177.0.0.1, 0x7f.0.0.1 and
 * 127.1 into "127.0.0.1" and ::ffff:127.0.0.1 into "[::ffff:7f00:1]", so only canonical
 * forms reach the classifiers below; the IPv4 reader still accepts the other spellings in
 * case a hostname arrives from elsewhere.
 *
 * Known limit: a public name whose DNS answer is a private address (DNS rebinding) passes,
 * because Workers have no DNS API to resolve a host before `fetch` connects to it.
 */

export type TargetCheck = { ok: true } | { ok: false; reason: string };

export function checkTarget(url: URL): TargetCheck {
  if (url.protocol !== "http:" && url.protocol !== "https:") return refuse("scheme_not_allowed");
  // A trailing dot names the same host ("localhost." is localhost).
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (host === "") return refuse("missing_host");
  if (host.startsWith("[")) return verdict(classifyIPv6(host.slice(1, -1)));
  const ipv4 = parseIPv4(host);
  if (ipv4 !== null) return verdict(classifyIPv4(ipv4));
  return verdict(classifyHostname(host));
}

const refuse = (reason: string): TargetCheck => ({ ok: false, reason });
const verdict = (reason: string | null): TargetCheck => (reason === null ? { ok: true } : refuse(reason));

function classifyHostname(host: string): string | null {
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  if (host.endsWith(".local")) return "local_network_name"; // mDNS
  if (host === "internal" || host.endsWith(".internal")) return "internal_name"; // e.g. metadata.google.internal
  return null;
}

/** [first address, prefix length, reason]; the first match wins, so specific ranges come first. */
const IPV4_REFUSED: [string, number, string][] = [
  ["169.254.169.254", 32, "cloud_metadata"],
  ["255.255.255.255", 32, "broadcast"],
  ["0.0.0.0", 32, "unspecified"],
  ["0.0.0.0", 8, "this_network"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared_address_space"], // carrier-grade NAT
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link_local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"], // IETF protocol assignments
  ["192.0.2.0", 24, "reserved"], // documentation
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "reserved"], // benchmarking
  ["198.51.100.0", 24, "reserved"], // documentation
  ["203.0.113.0", 24, "reserved"], // documentation
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

const IPV4_RANGES = IPV4_REFUSED.map(([first, prefix, reason]) => ({
  network: parseIPv4(first)!,
  mask: (0xffffffff << (32 - prefix)) >>> 0,
  reason,
}));

function classifyIPv4(address: number): string | null {
  return IPV4_RANGES.find(({ network, mask }) => ((address & mask) >>> 0) === network)?.reason ?? null;
}

/**
 * The WHATWG / inet_aton reading of an IPv4 host: 1 to 4 parts, each decimal, 0-octal or
 * 0x-hex, the last part filling the remaining bytes. Null when `host` is not an address.
 */
function parseIPv4(host: string): number | null {
  const parts = host.split(".");
  if (parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
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
  let rest = text.replace(/%.*$/, ""); // a zone id does not change which network it is
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

function classifyIPv6(text: string): string | null {
  const g = parseIPv6(text);
  if (g === null) return "unparsable_address";
  const embeddedIPv4 = ((g[6] << 16) >>> 0) + g[7];
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return "unspecified";
  if (zeroUpTo(7) && g[7] === 1) return "loopback";
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (deprecated compatible) reach the IPv4 address.
  if (zeroUpTo(5) && g[5] === 0xffff) return classifyIPv4(embeddedIPv4);
  if (zeroUpTo(6)) return classifyIPv4(embeddedIPv4);
  // 64:ff9b::/96 NAT64 translates to the embedded IPv4 address.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return classifyIPv4(embeddedIPv4);
  // 2002::/16 (6to4) carries an IPv4 address in groups 1 and 2.
  if (g[0] === 0x2002) return classifyIPv4(((g[1] << 16) >>> 0) + g[2]);
  if ((g[0] & 0xfe00) === 0xfc00) return "unique_local";
  if ((g[0] & 0xffc0) === 0xfe80) return "link_local";
  if ((g[0] & 0xffc0) === 0xfec0) return "site_local";
  if ((g[0] & 0xff00) === 0xff00) return "multicast";
  return null;
}
