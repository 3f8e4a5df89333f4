// The office function on AWS recycles LibreOffice after every job (SIGNET_LIBREOFFICE_RECYCLE):
// one job's LibreOffice, anything it left outside its process group, its profile and its
// temporary files are gone before the next job starts, so no caller's document meets a
// LibreOffice an earlier document had its hands on. The office worker path (runOfficeJob) with
// the real LibreOffice; without recycling (the local default) the warm one stays, as it should.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLibreOfficeConverter, type LibreOfficeConverter } from "#adapters/libreoffice/converter.ts";
import { INLINE_DOCUMENT_BYTES } from "#domain/documents/office-job.ts";
import { runOfficeJob } from "#domain/documents/office-worker.ts";
import { fixtureDocx } from "#test/helpers/convert-fixtures.ts";
import { processesMatching } from "#test/helpers/convert-runtime.ts";
import { officeOptions } from "#test/helpers/office-options.ts";

const root = mkdtempSync(join(tmpdir(), "signet-office-recycle-"));
const planted: number[] = [];
afterAll(() => {
  for (const pid of planted) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
  rmSync(root, { recursive: true, force: true });
});

const limits = {
  maxDocumentBytes: 25 * 1024 * 1024,
  maxEntries: 5000,
  maxUncompressedBytes: 200 * 1024 * 1024,
  maxImagePixels: 100_000_000,
  maxSvgBytes: 10 * 1024 * 1024,
};

/** officeJob runs one DOCX-to-PDF job as the office function does, and answers the PDF's first bytes. */
async function officeJob(converter: LibreOfficeConverter, title: string): Promise<string> {
  const answer = await runOfficeJob(
    { kind: "convert", from: "docx", to: "pdf", input: { base64: fixtureDocx({ title }).toString("base64") } },
    {
      converter,
      conversionLimitMs: 60_000,
      limits,
      inlineLimitBytes: INLINE_DOCUMENT_BYTES,
      readInput: () => Promise.reject(new Error("inline jobs only")),
      writeOutput: () => Promise.reject(new Error("inline jobs only")),
    },
  );
  if (!answer.ok || !("output" in answer) || !("base64" in answer.output)) throw new Error(`office job failed: ${JSON.stringify(answer)}`);
  return Buffer.from(answer.output.base64, "base64").subarray(0, 5).toString();
}

/** running tells whether a process is alive (not exited, not a zombie). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat[stat.lastIndexOf(")") + 2] !== "Z";
  } catch {
    return false;
  }
}

/** plantStray starts a process as one that left LibreOffice's process group would be: its own session, the slot's environment. */
function plantStray(workDir: string): number {
  const child = spawn("sleep", ["600"], { detached: true, stdio: "ignore", env: { TMPDIR: join(workDir, "slots", "0", "tmp") } });
  child.unref();
  planted.push(child.pid!);
  return child.pid!;
}

describe("recycling LibreOffice after every office job", () => {
  it("leaves no LibreOffice process, stray, profile or temporary file of a job once it answered", async () => {
    const workDir = join(root, "recycled");
    const converter = createLibreOfficeConverter(officeOptions({ mode: "warm", concurrency: 1, timeoutMs: 60_000, workDir, recycle: true }));
    try {
      expect(await officeJob(converter, "first caller")).toBe("%PDF-");
      expect(processesMatching(workDir)).toEqual([]);
      expect(existsSync(join(workDir, "profiles", "warm-0"))).toBe(false);
      expect(readdirSync(join(workDir, "slots", "0", "tmp"))).toEqual([]);
      // A process that left the group (setsid) with the slot's environment, as a taken-over LibreOffice could start.
      const stray = plantStray(workDir);
      expect(running(stray)).toBe(true);
      expect(await officeJob(converter, "second caller")).toBe("%PDF-");
      expect(processesMatching(workDir)).toEqual([]);
      expect(running(stray)).toBe(false);
    } finally {
      await converter.close();
    }
  }, 180_000);

  it("keeps the warm LibreOffice (and knows nothing of strays) when off, as locally", async () => {
    const workDir = join(root, "warm");
    const converter = createLibreOfficeConverter(officeOptions({ mode: "warm", concurrency: 1, timeoutMs: 60_000, workDir }));
    try {
      expect(await officeJob(converter, "first caller")).toBe("%PDF-");
      expect(processesMatching(workDir).some((line) => line.includes("soffice"))).toBe(true);
      const stray = plantStray(workDir);
      expect(await officeJob(converter, "second caller")).toBe("%PDF-");
      expect(running(stray)).toBe(true);
    } finally {
      await converter.close();
    }
  }, 180_000);
});
