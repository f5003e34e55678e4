/**
 * docs/bundle-sizes.md stays true: its figures are what `wrangler deploy --dry-run` reports for
 * each Worker `npm run deploy` ships, within 4 KiB (a change of a few lines need not rewrite the
 * page; a new dependency or a lost lazy load must). The console's assets are uploaded apart and
 * counted in no figure. On a failure: `npm run bundle-sizes` rewrites the page. Needs what
 * `npm test`'s pretest builds first: the validators, the protobuf code and the console's assets.
 */
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import {
  committedShares,
  committedSizes,
  measure,
  type Measured,
  offline,
  PAGE,
  sharesOf,
} from "../../../scripts/bundle-sizes.ts";
import { SHIPPED } from "../../../scripts/deploy.ts";

/** How far a committed figure may be from the measured one. */
const TOLERANCE_KIB = 4;

const page = readFileSync(PAGE, "utf8");
let measured: Measured;
beforeAll(async () => {
  measured = await measure();
  console.log(
    `bundle sizes measured${offline ? " without a network" : ""}: ${measured.sizes.map((s) => `${s.config} ${s.upload} KiB`).join(", ")}`,
  );
}, 300_000);

describe("docs/bundle-sizes.md", () => {
  it("lists every shipped Worker, and only those", () => {
    expect(
      committedSizes(page)
        .map((s) => s.config)
        .sort(),
    ).toEqual([...SHIPPED].sort());
  });

  it("gives each Worker's upload and gzip size as the dry run reports them", () => {
    for (const committed of committedSizes(page)) {
      const now = measured.sizes.find((s) => s.config === committed.config);
      expect(now, committed.config).toBeDefined();
      const drift = `${committed.config}: the page says ${committed.upload} / ${committed.gzip} KiB, the dry run ${now!.upload} / ${now!.gzip} KiB; run \`npm run bundle-sizes\``;
      expect(Math.abs(now!.upload - committed.upload), drift).toBeLessThanOrEqual(TOLERANCE_KIB);
      expect(Math.abs(now!.gzip - committed.gzip), drift).toBeLessThanOrEqual(TOLERANCE_KIB);
    }
  });

  it("says where the runtime's bytes come from as the bundler counts them", () => {
    const shares = committedShares(page);
    expect(shares.length).toBeGreaterThan(0);
    for (const committed of shares) {
      const now = measured.shares.find((s) => s.source === committed.source)?.kib ?? 0;
      expect(
        Math.abs(now - committed.kib),
        `${committed.source}: the page says ${committed.kib} KiB, the bundle has ${now} KiB; run \`npm run bundle-sizes\``,
      ).toBeLessThanOrEqual(TOLERANCE_KIB);
    }
  });
});

describe("sharesOf", () => {
  it("sums a bundle's bytes by npm package and by source folder", () => {
    const meta = {
      outputs: {
        "out/index.js.map": { inputs: {} },
        "out/index.js": {
          inputs: {
            "node_modules/zod/v4/core/schemas.js": { bytesInOutput: 2048 },
            "../../../main/node_modules/zod/v4/classic/schemas.js": { bytesInOutput: 1024 },
            "node_modules/@bufbuild/protobuf/dist/esm/index.js": { bytesInOutput: 512 },
            "src/mcp/handler.ts": { bytesInOutput: 1024 },
            "src/mcp/tasks.ts": { bytesInOutput: 1024 },
            "src/app.ts": { bytesInOutput: 102 },
          },
        },
      },
    };
    expect(sharesOf(meta)).toEqual([
      { source: "zod", kib: 3 },
      { source: "src/mcp", kib: 2 },
      { source: "@bufbuild/protobuf", kib: 0.5 },
      { source: "src/app.ts", kib: 0.1 },
    ]);
  });
});
