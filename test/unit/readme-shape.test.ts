import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../infra/bundling.ts";

// The README is the first screen a new user sees: short, the two commands and the AWS deploy at
// the top, details in docs/. Its code blocks run in test/integration/readme.test.ts.
const readme = readFileSync(join(repoRoot, "README.md"), "utf8");

describe("README.md's shape", () => {
  it("stays within 8 KB", () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(8 * 1024);
  });

  it("shows npm start, npm test and the cdk deploy in its first code block, within the first screen", () => {
    const firstScreen = readme.split("\n").slice(0, 25).join("\n");
    const block = /```sh\n([\s\S]*?)```/.exec(firstScreen)?.[1] ?? "";
    expect(block).toMatch(/^npm start\b/m);
    expect(block).toMatch(/^npm test\b/m);
    expect(block).toMatch(/^npx cdk deploy -c senderEmail=/m);
  });

  it("quotes no test or file counts, which go stale with the next test", () => {
    expect(readme).not.toMatch(/\b\d[\d,]* (tests|test files)\b/);
  });
});
