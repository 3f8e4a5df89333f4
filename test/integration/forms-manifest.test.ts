import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../infra/bundling.ts";

// The form corpus's ground truth (test/fixtures/forms/manifest.json) is generated: qpdf, mutool and
// pdfsig read the files again here, and the result must be byte for byte the committed manifest, so
// the truth the form features are measured against is reproducible and never edited by hand.
describe("npm run forms:manifest", () => {
  it("writes exactly the committed test/fixtures/forms/manifest.json", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [join(repoRoot, "scripts/forms-manifest.mjs"), "--stdout"], {
      maxBuffer: 64 * 1024 * 1024,
    });
    const committed = readFileSync(join(repoRoot, "test/fixtures/forms/manifest.json"), "utf8");
    expect(stdout === committed, "test/fixtures/forms/manifest.json is stale: run npm run forms:manifest").toBe(true);
  });
});
