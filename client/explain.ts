/**
 * What went wrong, in words, and what to do next: one table for the console and `trt`, so
 * both say the same thing about the same error. `where` picks the wording of actions that
 * differ between a page (sign in again) and a terminal (set TRT_KEY).
 */
import type { ToolRuntimeError } from "./errors.ts";

export interface Explanation {
  /** One line: what happened. */
  title: string;
  /** What to do about it. */
  action: string;
  /** Extra lines (schema violations, the provider's message). */
  lines: string[];
}

type Where = "web" | "cli";

export function explainError(err: ToolRuntimeError, where: Where): Explanation {
  const lines: string[] = [];
  const violations = Array.isArray(err.details?.violations)
    ? (err.details!.violations as { path?: string; message?: string }[])
    : [];
  for (const v of violations) lines.push(`${v.path || "(input)"}: ${v.message ?? "is not valid"}`);
  const wait = err.retryAfterSeconds;
  const later = wait !== undefined ? `in ${wait} s` : "in a moment";
  switch (err.code) {
    case "unauthenticated":
      return {
        title: "The runtime did not accept this API key: it is wrong, revoked or expired.",
        action:
          where === "web"
            ? "Sign in again with a valid key; what you typed on this page is kept."
            : "Set TRT_KEY (or pass --key) to a valid key; an operator can create one.",
        lines,
      };
    case "forbidden":
      return {
        title: `This key may not do that: ${err.message}.`,
        action: "Ask an operator for a key with the capability or channel it needs.",
        lines,
      };
    case "invalid_input":
      return {
        title: "The input does not match the tool's schema.",
        action: "Fix the fields listed and run it again.",
        lines,
      };
    case "invalid_request":
      return { title: `The request was refused: ${err.message}.`, action: "Correct it and send it again.", lines };
    case "tool_not_found":
      return {
        title: err.message,
        action:
          where === "web"
            ? "Search the tools list for the right name or version."
            : "See `trt tools` for the names and versions there are.",
        lines,
      };
    case "tool_deprecated":
      return {
        title: `${err.message}.`,
        action: err.details?.replacement ? `Use ${String(err.details.replacement)} instead.` : "Pick a newer version.",
        lines,
      };
    case "execution_not_found":
      return {
        title: "No such execution: the id is unknown, expired (kept 24 h) or another tenant's.",
        action: "Check the id; recent executions are in the executions list.",
        lines,
      };
    case "rate_limited":
      return {
        title: `Too many calls right now (${String(err.details?.reason ?? "rate limit")}).`,
        action: `Wait and try again ${later}; nothing was run.`,
        lines,
      };
    case "no_healthy_provider":
      return {
        title: "No provider of this tool can serve right now (down, disabled or circuit-broken).",
        action: `Try again ${later}.`,
        lines,
      };
    case "payload_too_large":
      return { title: "The request is larger than the runtime accepts.", action: "Send a smaller input.", lines };
    case "network_error":
      return {
        title: `${err.message[0].toUpperCase()}${err.message.slice(1)}.`,
        action:
          where === "web"
            ? "Check the connection and try again; nothing you typed is lost."
            : "Is the runtime running (npm start)? Check TRT_URL (or --url).",
        lines,
      };
    case "invalid_argument":
      return {
        title: err.message,
        action: where === "web" ? "Correct it and try again." : "Correct the argument and run again.",
        lines,
      };
    case "client_timeout":
      return {
        title: `No answer in time: ${err.message}.`,
        action: "The runtime may still have run it: look it up before sending it again, or allow more time.",
        lines,
      };
    case "bad_response":
      return {
        title: err.message,
        action:
          where === "web"
            ? "Reload the page; if it persists, tell an operator."
            : "Check TRT_URL: it must point at the runtime itself.",
        lines,
      };
    case "internal":
      return {
        title: `The runtime failed: ${err.message}.`,
        action: `Try again ${later}; if it keeps failing, tell an operator${err.details?.execution_id ? ` (execution ${String(err.details.execution_id)})` : ""}.`,
        lines,
      };
    default:
      // The execution ran and ended badly (tool_error, timeout, provider_crashed, cancelled…), or a newer code.
      return {
        title: `${err.code.replace(/_/g, " ")}: ${err.message}`,
        action: err.retryable
          ? `It may work if you try again ${later}.`
          : "Running it again unchanged will likely fail the same way.",
        lines,
      };
  }
}
