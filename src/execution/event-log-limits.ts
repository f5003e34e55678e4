/**
 * Per-event and per-execution bounds on the event log (docs/contract.md#streaming), so a chatty tool cannot
 * exhaust memory or storage. A module of its own, free of platform imports, so the e2e tests
 * (in Node) can read the bounds they test.
 */
export const MAX_EVENT_BYTES = 64 * 1024;
export const MAX_EVENTS = 10_000;
export const MAX_LOG_BYTES = 4 * 1024 * 1024;
