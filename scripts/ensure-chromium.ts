/**
 * The browser tests drive Debian's Chromium (/usr/bin/chromium) with playwright-core;
 * `npx playwright install` cannot work here (it downloads a browser build). This step, run by
 * `pretest`, installs the Debian package when it is missing (CI runs as root on a clean
 * machine). Elsewhere it says what to do instead of failing obscurely later.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

if (!existsSync(CHROMIUM)) {
  const root = process.getuid?.() === 0;
  if (process.platform !== "linux" || !existsSync("/usr/bin/apt-get") || !root) {
    console.error(
      `The browser tests need Chromium at ${CHROMIUM}. Install it (Debian: \`sudo apt-get install -y chromium\`) or set CHROMIUM_PATH.`,
    );
    process.exit(1);
  }
  const apt = (...args: string[]) =>
    spawnSync("apt-get", args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } })
      .status === 0;
  console.log("installing Debian's chromium for the browser tests…");
  // A fresh machine may have no package lists yet: update, then install.
  if (!apt("install", "-y", "chromium") && !(apt("update") && apt("install", "-y", "chromium"))) {
    console.error("apt-get could not install chromium; the browser tests cannot run.");
    process.exit(1);
  }
}
