// Every sh code block of README.md runs, in order and in one shell, against a fresh local server,
// as a reader pastes them: from a folder holding the repository's examples/, with the README's
// addresses (localhost:3000, 127.0.0.1:8005) pointed at this server's ephemeral ports. The key is
// obtained the way the README says (register, code from the local SES store, verify). A block not
// meant to run says so in an HTML comment right above it: <!-- readme-test: skip (reason) -->.
// Sample outputs in the blocks (comment lines holding JSON) must be what the server printed.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { pdfsig, pdfText } from "#test/helpers/pdf-tools.ts";

/** CodeBlock is one fenced block of the README, with the skip reason written above it, if any. */
interface CodeBlock {
  lang: string;
  code: string;
  skip?: string;
  line: number;
}

/** readmeBlocks returns every fenced code block of a Markdown text. */
function readmeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const pattern = /(?:<!-- readme-test: skip \(([^)]+)\) -->\n)?```([a-z]*)\n([\s\S]*?)```/g;
  for (const match of markdown.matchAll(pattern)) {
    blocks.push({
      lang: match[2]!,
      code: match[3]!,
      ...(match[1] ? { skip: match[1] } : {}),
      line: markdown.slice(0, match.index).split("\n").length,
    });
  }
  return blocks;
}

const readme = readFileSync("README.md", "utf8");
const blocks = readmeBlocks(readme);
const runnable = blocks.filter((block) => block.lang === "sh" && !block.skip);

let api: LocalApi;
let workDir: string;

beforeAll(async () => {
  api = await startLocalApi("readme", { SIGNET_TABLE: "signet-readme" });
  workDir = mkdtempSync(join(tmpdir(), "signet-readme-"));
  symlinkSync(resolve("examples"), join(workDir, "examples"));
}, 180_000);

afterAll(async () => {
  await api?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe("README.md", () => {
  it("marks every block: sh runs, a skipped one gives its reason, other blocks are plain text", () => {
    expect(runnable.length).toBeGreaterThanOrEqual(5);
    for (const block of blocks) {
      expect(["sh", "text"], `README.md:${block.line}: a block must be sh or text`).toContain(block.lang);
    }
    expect(blocks.filter((block) => block.skip).map((block) => block.code)).toEqual([expect.stringContaining("npm start")]);
  });

  it("runs every sh block as written against a fresh local server", async () => {
    // One bash per block (so each block's exit status is its own), carrying exported variables on
    // as one terminal would: every assignment is exported (set -a) and saved after the block.
    const state = join(workDir, ".readme-state.sh");
    const { SIGNET_KEY: _ignored, ...env } = process.env;
    const outputs: string[] = [];
    for (const block of runnable) {
      const code = block.code.replaceAll("http://localhost:3000", api.url).replaceAll("http://127.0.0.1:8005", api.standIns.sesEndpoint);
      const script = `set -a -eo pipefail\n[ -f '${state}' ] && source '${state}'\n${code}\nstatus=$?; export -p > '${state}'; exit $status\n`;
      const result = await new Promise<{ status: number; stdout: string; stderr: string }>((done) => {
        execFile("bash", ["-c", script], { cwd: workDir, env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
          done({ status: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });
      const where = `README.md:${block.line}\n${block.code}\nstdout: ${result.stdout.slice(0, 2000)}\nstderr: ${result.stderr.slice(0, 2000)}`;
      expect(result.status, where).toBe(0);
      // set -e does not stop inside an && chain; a failed curl still says so on stderr.
      expect(result.stderr, where).not.toMatch(/curl: \(\d+\)/);
      outputs.push(result.stdout);
    }

    // Each JSON sample output written as a comment in a block is what that block printed.
    runnable.forEach((block, index) => {
      const samples = block.code
        .split("\n")
        .filter((line) => /^# [[{]/.test(line))
        .map((line) => line.slice(2));
      const printed = outputs[index]!.split("\n");
      for (const sample of samples) expect(printed, `README.md:${block.line}`).toContain(sample);
    });

    // The files the quick start wrote, checked by independent tools.
    expect((await pdfsig(join(workDir, "signed.pdf"))).map((signature) => signature.text).join("\n")).toMatch(/Signature is Valid/);
    expect(await pdfText(join(workDir, "contract.pdf"))).toContain("Service agreement");
    expect(readFileSync(join(workDir, "notes.docx")).subarray(0, 2).toString()).toBe("PK");
    const filled = await pdfText(join(workDir, "filled.pdf"));
    expect(filled).toContain("Customer: Ada Lovelace");
    expect(filled).toContain("Analytical Engines Ltd");
    expect(filled).toContain("C-42");
  }, 300_000);
});
