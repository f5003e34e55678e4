/**
 * The log levels a `tools/call`'s client asks for (src/mcp/log-level.ts): MCP's eight syslog
 * levels in order, and the 2026-07-28 envelope key.
 */
import { describe, expect, it } from "vitest";
import { atLeast, isLoggingLevel, requestLogLevel } from "../../../src/mcp/log-level.ts";

describe("log levels", () => {
  it("orders MCP's levels from debug to emergency", () => {
    expect(atLeast("info", "info")).toBe(true);
    expect(atLeast("warning", "info")).toBe(true);
    expect(atLeast("debug", "info")).toBe(false);
    expect(atLeast("emergency", "debug")).toBe(true);
    expect(atLeast("error", "critical")).toBe(false);
  });

  it("takes only a known level from the 2026-07-28 envelope", () => {
    expect(requestLogLevel({ "io.modelcontextprotocol/logLevel": "notice" })).toBe("notice");
    expect(requestLogLevel({ "io.modelcontextprotocol/logLevel": "verbose" })).toBeUndefined();
    expect(requestLogLevel({})).toBeUndefined();
    expect(requestLogLevel(undefined)).toBeUndefined();
    expect(isLoggingLevel("alert")).toBe(true);
    expect(isLoggingLevel(3)).toBe(false);
  });
});
