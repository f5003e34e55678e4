import { describe, expect, it } from "vitest";
import { checkTarget } from "../../providers/std/src/tools/target-guard.ts";

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
  ])("refuses the IPv6 address in %s as %s", (url, reason) => {
    expect(check(url)).toEqual({ ok: false, reason });
  });

  it.each([
    ["http://localhost/", "loopback"],
    ["http://LOCALHOST./", "loopback"],
    ["http://api.localhost:3000/", "loopback"],
    ["http://printer.local/", "local_network_name"],
    ["http://metadata.google.internal/", "internal_name"],
    ["http://service.internal./", "internal_name"],
  ])("refuses the local name in %s", (url, reason) => {
    expect(check(url)).toEqual({ ok: false, reason });
  });

  it.each([
    "https://api.example.com",
    "http://93.184.216.34/",
    "https://example.com:8443/path?q=1",
    "http://[2606:4700:4700::1111]/",
    "http://[::ffff:93.184.216.34]/",
    "https://localhost.example.com/",
    "https://internal.example.com/",
    "http://8.8.8.8/",
  ])("allows the public target %s", (url) => {
    expect(check(url)).toEqual({ ok: true });
  });
});
