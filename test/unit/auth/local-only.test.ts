/** The rules that keep a local development stack to its own machine (src/auth/local-only.ts). */
import { describe, expect, it } from "vitest";
import { isLocalRequest, isLoopbackHost, isLoopbackOrigin, localOnlyRefusal } from "../../../src/auth/local-only.ts";

const request = (url: string, headers: Record<string, string> = {}) => ({ url, headers: new Headers(headers) });

describe("loopback hosts", () => {
  it("are localhost and its subdomains, 127.0.0.0/8 and [::1], with any port", () => {
    for (const host of [
      "localhost",
      "localhost:8787",
      "LOCALHOST:1",
      "app.localhost:5173",
      "127.0.0.1",
      "127.0.0.1:8787",
      "127.255.0.9:80",
      "127.1",
      "[::1]",
      "[::1]:8787",
      "[0:0:0:0:0:0:0:1]:9",
    ]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
  });

  it("are not other names, other addresses, look-alikes or malformed values", () => {
    for (const host of [
      null,
      "",
      "attacker.example",
      "localhost.attacker.example",
      "127.0.0.1.nip.io",
      "128.0.0.1",
      "0.0.0.0:8787",
      "10.0.0.1",
      "[::2]",
      "[::ffff:7f00:1]x",
      "localhost/evil",
      "user@localhost",
      "localhost:8787 ",
      "::1",
    ]) {
      expect(isLoopbackHost(host), String(host)).toBe(false);
    }
  });
});

describe("loopback origins", () => {
  it("are http(s) pages served from a loopback host", () => {
    for (const origin of ["http://localhost:6274", "https://127.0.0.1", "http://[::1]:3000"])
      expect(isLoopbackOrigin(origin), origin).toBe(true);
  });

  it("are not other sites, opaque origins or other schemes", () => {
    for (const origin of [
      "http://attacker.example",
      "null",
      "file://",
      "chrome-extension://abc",
      "http://localhost.attacker.example",
      "ws://localhost",
    ])
      expect(isLoopbackOrigin(origin), origin).toBe(false);
  });
});

describe("a request from this machine", () => {
  it("has a loopback URL host, a loopback Host header when there is one, and a loopback connecting address when one is known", () => {
    expect(isLocalRequest(request("http://127.0.0.1:8787/v1/tools"))).toBe(true);
    expect(
      isLocalRequest(
        request("http://localhost:8787/v1/tools", { host: "localhost:8787", "cf-connecting-ip": "127.0.0.1" }),
      ),
    ).toBe(true);
    expect(isLocalRequest(request("http://localhost:8787/v1/tools", { "cf-connecting-ip": "::1" }))).toBe(true);
    expect(isLocalRequest(request("http://attacker.example/v1/tools"))).toBe(false);
    expect(isLocalRequest(request("http://127.0.0.1:8787/v1/tools", { host: "attacker.example" }))).toBe(false);
    expect(isLocalRequest(request("http://127.0.0.1:8787/v1/tools", { "cf-connecting-ip": "198.51.100.4" }))).toBe(
      false,
    );
  });

  it("does not depend on Origin for the keys; the guard refuses a foreign Origin and says which header failed", () => {
    const fromPage = request("http://127.0.0.1:8787/v1/tools", { origin: "http://attacker.example" });
    expect(isLocalRequest(fromPage)).toBe(true);
    expect(localOnlyRefusal(fromPage)).toMatch(/Origin "http:\/\/attacker\.example" is not a loopback origin/);
    expect(localOnlyRefusal(request("http://rebound.attacker.example:8787/mcp"))).toMatch(
      /Host "rebound\.attacker\.example:8787"/,
    );
    expect(
      localOnlyRefusal(request("http://127.0.0.1:8787/v1/tools", { origin: "http://localhost:5173" })),
    ).toBeUndefined();
  });
});
