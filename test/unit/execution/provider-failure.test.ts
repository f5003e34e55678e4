import { describe, expect, it } from "vitest";
import { classifyRpcFailure } from "../../../src/execution/provider-failure.ts";

/** An error as workerd hands it to the caller: message plus the flags it sets. */
const platformError = (message: string, flags: Record<string, unknown> = {}, ctor: ErrorConstructor = Error) =>
  Object.assign(new ctor(message), flags);

describe("classifyRpcFailure", () => {
  it.each([
    ["Worker exceeded CPU time limit.", {}],
    ["Worker exceeded CPU time limit.", { remote: true, durableObjectReset: true }],
    ["Durable Object exceeded its CPU time limit and was reset.", { durableObjectReset: true }],
    ["exceeded CPU time limit", {}],
  ])("calls %j (%j) resource_exceeded, raised by the platform", (message, flags) => {
    expect(classifyRpcFailure(platformError(message, flags))).toEqual({
      code: "resource_exceeded",
      message: "the provider exceeded its CPU time limit on this call",
      transport: true,
    });
  });

  it.each([
    "Worker exceeded memory limit.",
    "Worker has exceeded memory limit.",
    "Durable Object's isolate exceeded its memory limit and was reset.",
  ])("calls %j resource_exceeded (memory)", (message) => {
    expect(classifyRpcFailure(platformError(message))).toMatchObject({
      code: "resource_exceeded",
      message: expect.stringMatching(/memory/),
      transport: true,
    });
  });

  it("calls the provider's own exception a crash that the provider's code raised, without its text", () => {
    // Seen under wrangler dev: a handler-less throw in the entrypoint arrives as the same class, remote.
    const failure = classifyRpcFailure(
      platformError("Cannot read properties of undefined (reading 'y')", { remote: true }, TypeError),
    );
    expect(failure).toEqual({
      code: "provider_crashed",
      message: "the provider's Worker failed before answering",
      transport: false,
    });
    expect(failure.message).not.toMatch(/undefined/);
  });

  it("calls a provider Worker that is not running sandbox_unavailable (wrangler dev's words)", () => {
    const err = platformError('Worker "tool-provider-std" not found. Make sure it is running locally.', {
      remote: true,
    });
    expect(classifyRpcFailure(err)).toEqual({
      code: "sandbox_unavailable",
      message: "the provider's Worker could not be reached",
      transport: true,
    });
  });

  it("calls a bound Worker without invoke sandbox_unavailable", () => {
    const err = platformError('The RPC receiver does not implement the method "invoke".', { remote: true }, TypeError);
    expect(classifyRpcFailure(err)).toMatchObject({ code: "sandbox_unavailable", transport: true });
  });

  it("calls an overloaded Worker sandbox_unavailable", () => {
    expect(classifyRpcFailure(platformError("Too many requests queued", { overloaded: true }))).toMatchObject({
      code: "sandbox_unavailable",
      transport: true,
    });
  });

  it("calls a hung callee a crash the platform detected", () => {
    const err = platformError(
      "The Workers runtime canceled this request because it detected that your Worker's code had hung and would never generate a response. Refer to: https://developers.cloudflare.com/workers/observability/errors/",
    );
    expect(classifyRpcFailure(err)).toMatchObject({ code: "provider_crashed", transport: true });
  });

  it("calls a lost connection a crash (the call may have run)", () => {
    expect(classifyRpcFailure(platformError("Network connection lost."))).toMatchObject({
      code: "provider_crashed",
      transport: true,
    });
  });

  it.each([
    ["a string", "boom"],
    ["undefined", undefined],
    ["a plain object", { message: 42 }],
    [
      "an object whose toString throws",
      {
        toString: () => {
          throw new Error("no");
        },
      },
    ],
    ["an internal error", new Error("internal error; reference = 0123abcd4567")],
  ])("answers anything else (%s) as a failed call, never throwing", (_what, value) => {
    expect(classifyRpcFailure(value)).toEqual({
      code: "provider_crashed",
      message: "the call to the provider failed",
      transport: true,
    });
  });

  it("returns a fresh object each time (callers may amend it)", () => {
    const a = classifyRpcFailure(new Error("Worker exceeded CPU time limit."));
    a.message = "changed";
    expect(classifyRpcFailure(new Error("Worker exceeded CPU time limit.")).message).not.toBe("changed");
  });
});
