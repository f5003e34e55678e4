/**
 * What the production-mode stack's first requests answered (test/prod/global-setup.ts makes
 * them in the background while the other projects' files run): waits for its file, and fails
 * with why when the stack could not open.
 */
import { existsSync, readFileSync } from "node:fs";
import type { Opening, ProdStack } from "./global-setup.ts";

const OPEN_WITHIN_MS = 240_000;

export async function awaitOpening(prod: ProdStack): Promise<Opening> {
  const deadline = Date.now() + OPEN_WITHIN_MS;
  while (!existsSync(prod.openingFile)) {
    if (Date.now() > deadline)
      throw new Error(
        `the production-mode stack did not open within ${OPEN_WITHIN_MS} ms:\n${existsSync(prod.stackLog) ? readFileSync(prod.stackLog, "utf8").slice(-20_000) : "(it printed nothing)"}`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
  const { opening, error } = JSON.parse(readFileSync(prod.openingFile, "utf8")) as {
    opening?: Opening;
    error?: string;
  };
  if (!opening) throw new Error(`the production-mode stack could not open: ${error}`);
  return opening;
}
