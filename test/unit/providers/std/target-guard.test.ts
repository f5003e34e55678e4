import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { egressPolicyFrom } from "../../../../providers/std/src/tools/egress-policy.ts";
import { checkTarget } from "../../../../providers/std/src/tools/target-guard.ts";

// Through `new URL()` first, as http.request does, so WHATWG normalization is part of the test.
const check = (raw: string) => checkTarget(new URL(raw));

describe("checkTarget", () => {
  it.each([
    ["ftp://example.com/file", "scheme_not_allowed"],
    ["file:///etc/passwd", "scheme_not_allowed"],
    ["data:text/plain,hi", "scheme_not_allowed"],
    ["javascript:alert(1)", "scheme_not_allowed"],
    ["ws://example.com/", "scheme_not_allowed"],
  ])("refuses the scheme of %s", (url, reason) => {
    expect(check(url)).toEqual({ ok: false, reason });
  });

  it.each([
    ["http://127.0.0.1/", "loopback"],
    ["http://127.255.10.1:8080/", "loopback"],
    ["http://10.0.0.5/", "private"],
    ["http://172.16.0.1/", "private"],
    ["http://172.31.255.255/", "private"],
    ["http://192.168.1.1/", "private"],
    ["http://169.254.1.1/", "link_local"],
    ["http://169.254.169.254/latest/meta-data/", "cloud_metadata"],
    ["http://0.0.0.0/", "unspecified"],
    ["http://0.1.2.3/", "this_network"],
    ["http://100.64.0.1/", "shared_address_space"],
    ["http://100.127.255.254/", "shared_address_space"],
    ["http://224.0.0.1/", "multicast"],
    ["http://239.255.255.250/", "multicast"],
    ["http://255.255.255.255/", "broadcast"],
    ["http://240.0.0.1/", "reserved"],
  ])("refuses the IPv4 address in %s as %s", (url, reason) => {
    expect(check(url)).toEqual({ ok: false, reason });
  });

  it.each([
    ["http://2130706433/", "decimal"],
    ["http://0177.0.0.1/", "octal"],
    ["http://0x7f.0.0.1/", "hex"],
    ["http://0x7f000001/", "single hex"],
    ["http://127.1/", "short"],
    ["http://127.0.1/", "three-part"],
    ["http://127.0.0.1./", "trailing dot"],
    ["http://127.0.0.1.../", "trailing dots"],
  ])("refuses loopback spelled %s (%s)", (url) => {
    expect(check(url)).toEqual({ ok: false, reason: "loopback" });
  });

  it("refuses the unspecified address spelled as 0", () => {
    expect(check("http://0/")).toEqual({ ok: false, reason: "unspecified" });
  });

  it("refuses the metadata address spelled in decimal", () => {
    expect(check("http://2852039166/")).toEqual({ ok: false, reason: "cloud_metadata" });
  });

  it.each([
    ["http://[::1]/", "loopback"],
    ["http://[0:0:0:0:0:0:0:1]/", "loopback"],
    ["http://[::]/", "unspecified"],
    ["http://[fc00::1]/", "unique_local"],
    ["http://[fd12:3456:789a::1]/", "unique_local"],
    ["http://[fe80::1]/", "link_local"],
    ["http://[febf::1]/", "link_local"],
    ["http://[ff02::1]/", "multicast"],
    ["http://[::ffff:127.0.0.1]/", "loopback"],
    ["http://[::ffff:7f00:1]/", "loopback"],
    ["http://[::ffff:169.254.169.254]/", "cloud_metadata"],
    ["http://[::ffff:10.0.0.1]/", "private"],
    ["http://[::127.0.0.1]/", "loopback"],
    ["http://[64:ff9b::192.168.0.1]/", "private"],
    ["http://[2002:7f00:1::]/", "loopback"],
    ["http://[::ffff:0:7f00:1]/", "loopback"], // SIIT ::ffff:0:a.b.c.d
    ["http://[::ffff:0:169.254.169.254]/", "cloud_metadata"],
    ["http://[64:ff9b:1::a00:1]/", "nat64_local"],
    ["http://[64:ff9b:1:ffff::1]/", "nat64_local"],
    ["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "teredo"],
    ["http://[2001::1]/", "teredo"],
    ["http://[2001:2::1]/", "reserved"], // benchmarking, inside 2001::/23
    ["http://[2001:db8::1]/", "reserved"], // documentation
    ["http://[3fff::1]/", "reserved"], // documentation (RFC 9637)
    ["http://[5f00::1]/", "reserved"], // SRv6
    ["http://[100::1]/", "discard"],
    ["http://[fd00:ec2::254]/", "unique_local"], // AWS metadata over IPv6
    ["http://[4000::1]/", "not_global_unicast"],
    ["http://[1::1]/", "not_global_unicast"],
    ["http://[::2]/", "this_network"], // ::0.0.0.2, the IPv4-compatible form of 0.0.0.2
  ])("refuses the IPv6 address in %s as %s", (url, reason) => {
    expect(check(url)).toEqual({ ok: false, reason });
  });

  it.each([
    ["http://localhost/", "loopback"],
    ["http://LOCALHOST./", "loopback"],
    ["http://localhost../", "loopback"],
    ["http://api.localhost:3000/", "loopback"],
    ["http://printer.local/", "local_network_name"],
    ["http://metadata.google.internal/", "internal_name"],
    ["http://service.internal./", "internal_name"],
    ["http://kubernetes.default.svc/", "internal_name"],
    ["http://kubernetes.default.svc.cluster.local/", "internal_name"],
    ["http://nas.home.arpa/", "internal_name"],
    ["http://wiki.corp/", "internal_name"],
    ["http://router.lan/", "internal_name"],
    ["http://db.localdomain/", "internal_name"],
    ["http://site.test/", "special_use_name"],
    ["http://x.invalid/", "special_use_name"],
    ["http://hidden.onion/", "special_use_name"],
    ["http://1.0.0.127.in-addr.arpa/", "special_use_name"],
    ["http://metadata/computeMetadata/v1/", "single_label_name"],
    ["http://metadata./", "single_label_name"],
    ["http://kubernetes/", "single_label_name"],
    ["http://a..example.com/", "malformed_name"],
  ])("refuses the local name in %s", (url, reason) => {
    expect(check(url)).toEqual({ ok: false, reason });
  });

  it("refuses a name longer than DNS allows, in linear time", () => {
    const long = `http://${"a.".repeat(100_000)}example.com/`;
    expect(check(long)).toEqual({ ok: false, reason: "name_too_long" });
  });

  it("strips 100,000 trailing dots in linear time", () => {
    expect(check(`http://localhost${".".repeat(100_000)}/`)).toEqual({ ok: false, reason: "loopback" });
  });

  it.each([
    "https://api.example.com",
    "http://93.184.216.34/",
    "https://example.com:443/path?q=1",
    "http://example.com.../",
    "http://[2606:4700:4700::1111]/",
    "http://[::ffff:93.184.216.34]/",
    "https://localhost.example.com/",
    "https://internal.example.com/",
    "http://8.8.8.8/",
  ])("allows the public target %s", (url) => {
    expect(check(url)).toEqual({ ok: true });
  });

  it.each([
    ["https://example.com:8443/", "port_not_allowed"],
    ["http://example.com:22/", "port_not_allowed"],
    ["http://example.com:443/", null], // https's port over http is still one of the allowed ports
    ["https://example.com:80/", null],
  ])("applies the default port list (80, 443) to %s", (url, reason) => {
    expect(check(url)).toEqual(reason === null ? { ok: true } : { ok: false, reason });
  });
});

describe("checkTarget under an egress policy", () => {
  const policy = egressPolicyFrom({
    EGRESS_PORTS: "443, 8443",
    EGRESS_ALLOW: "127.0.0.1:9999,[::1]:8080 localhost.:7000",
  });
  const checkWith = (raw: string) => checkTarget(new URL(raw), policy);

  it.each([
    ["https://example.com:8443/", { ok: true }],
    ["http://example.com/", { ok: false, reason: "port_not_allowed" }],
    ["http://127.0.0.1:9999/x", { ok: true }],
    ["http://127.0.0.1:9998/", { ok: false, reason: "loopback" }],
    ["http://[::1]:8080/", { ok: true }],
    ["http://LOCALHOST.:7000/", { ok: true }],
    ["http://localhost:7001/", { ok: false, reason: "loopback" }],
    ["ftp://127.0.0.1:9999/", { ok: false, reason: "scheme_not_allowed" }],
  ])("judges %s", (url, verdict) => {
    expect(checkWith(url)).toEqual(verdict);
  });

  it("ships with ports 80 and 443 and nothing allowed", () => {
    const defaults = egressPolicyFrom({});
    expect([...defaults.ports]).toEqual([80, 443]);
    expect(defaults.allow.size).toBe(0);
    expect(egressPolicyFrom({ EGRESS_ALLOW: "", EGRESS_PORTS: "" })).toEqual(defaults);
  });

  it.each([
    [{ EGRESS_PORTS: "80,http" }, /not a port/],
    [{ EGRESS_PORTS: "0" }, /not a port/],
    [{ EGRESS_PORTS: "65536" }, /not a port/],
    [{ EGRESS_ALLOW: "127.0.0.1" }, /exactly host:port/],
    [{ EGRESS_ALLOW: "127.0.0.1:80/path" }, /exactly host:port/],
    [{ EGRESS_ALLOW: "user@127.0.0.1:80" }, /exactly host:port/],
    [{ EGRESS_ALLOW: "*:80" }, /not a host name or address/],
    [{ EGRESS_ALLOW: 5 }, /must be/],
  ])("refuses the malformed setting %j when it is loaded", (vars, message) => {
    expect(() => egressPolicyFrom(vars)).toThrow(message);
  });
});

describe("checkTarget on any host a URL can carry", () => {
  it("answers every generated URL with a verdict, never throwing", () => {
    const label = fc.stringMatching(/^[a-z0-9-]{1,12}$/);
    const host = fc.oneof(
      fc.array(label, { minLength: 1, maxLength: 5 }).map((l) => l.join(".")),
      fc.ipV4(),
      fc.ipV4Extended(),
      fc.ipV6().map((a) => `[${a}]`),
    );
    fc.assert(
      fc.property(host, fc.constantFrom("", ".", ".."), fc.integer({ min: 1, max: 65535 }), (h, dots, port) => {
        let url: URL;
        try {
          url = new URL(`http://${h}${dots}:${port}/`);
        } catch {
          return; // not a URL at all: http.request reports invalid_url before the guard
        }
        const verdict = checkTarget(url);
        expect(verdict.ok || typeof verdict.reason === "string").toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
