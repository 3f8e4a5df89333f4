// What a killed LibreOffice leaves behind: nothing. Temporary files of a timed-out job,
// and processes and folders of a server killed with -9. Real LibreOffice.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLibreOfficeConverter } from "#adapters/libreoffice/converter.ts";
import { isSignetError } from "#domain/shared/errors.ts";
import { fixtureDocx, slowDocx } from "#test/helpers/convert-fixtures.ts";
import { processesMatching, until } from "#test/helpers/convert-runtime.ts";
import { unchecked } from "#test/helpers/prepared-documents.ts";
import { officeOptions } from "#test/helpers/office-options.ts";

const root = mkdtempSync(join(tmpdir(), "signet-convert-cleanup-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** filesUnder lists every file below dir, and LibreOffice's temporary folders (lu*.tmp), relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((path) => /lu\w+\.tmp$/.test(path) || !statSync(join(dir, path)).isDirectory());
}

/** leftovers lists what a converter's work folder holds besides the profiles LibreOffice keeps. */
function leftovers(workDir: string): string[] {
  const kept = (path: string) => path.startsWith("profiles/") && !/lu\w+\.tmp/.test(path);
  return filesUnder(workDir).filter((path) => !kept(path) && !path.startsWith("home/.cache/"));
}

// The limit under test is set for the case it provokes: slowDocx keeps LibreOffice busy far longer
// than HANG_LIMIT_MS on any machine, so it is killed there whatever the load. Ordinary conversions
// (the one after the kill) run under a generous limit of their own, never under the short one: at
// load 10 an ordinary conversion took longer than 4 s.
const HANG_LIMIT_MS = 4_000;
const ORDINARY_LIMIT_MS = 180_000;

describe("a LibreOffice killed at the time-out", () => {
  it.each(["warm", "oneshot"] as const)(
    "leaves no temporary or job files under the slot's folders (%s)",
    async (mode) => {
      const workDir = join(root, `timeout-${mode}`);
      const killing = createLibreOfficeConverter(officeOptions({ mode, concurrency: 1, timeoutMs: HANG_LIMIT_MS, workDir }));
      try {
        await killing.warm().catch(() => undefined); // a warm start slower than the short limit leaves a one-shot run: killed all the same
        const outcome = await killing.convert(unchecked(slowDocx(), "docx"), { to: "pdf" }).then(
          () => "converted",
          (error: unknown) => (isSignetError(error) ? error.code : String(error)),
        );
        expect(outcome).toBe("CONVERSION_TIMEOUT");
        expect(leftovers(workDir)).toEqual([]);
      } finally {
        await killing.close();
      }
      // The next job in the same folders starts clean and leaves nothing either.
      const next = createLibreOfficeConverter(officeOptions({ mode, concurrency: 1, timeoutMs: ORDINARY_LIMIT_MS, workDir }));
      try {
        expect((await next.convert(unchecked(fixtureDocx(), "docx"), { to: "pdf" })).subarray(0, 5).toString()).toBe("%PDF-");
        // A running LibreOffice keeps its session folder (lu*.tmp) in its TMPDIR until it exits.
        if (mode === "oneshot") expect(leftovers(workDir)).toEqual([]);
        else expect(leftovers(workDir).filter((path) => /^slots\/\d+\/job\//.test(path))).toEqual([]);
      } finally {
        await next.close();
      }
    },
    ORDINARY_LIMIT_MS + 120_000,
  );
});

describe("a server killed with -9", () => {
  it.each([
    ["while its warm pool starts", "warm"],
    ["during a one-shot conversion", "oneshot"],
  ])(
    "takes its LibreOffice along (%s), and the next start sweeps its folder",
    async (_when, mode) => {
      const temp = mkdtempSync(join(root, "tmp-"));
      // Its own process group, its own TMPDIR (so its work folder, signet-lo-<pid>-*, is found here).
      const child = spawn(process.execPath, ["--import", "tsx", "test/helpers/convert-server-child.ts", mode], {
        cwd: process.cwd(),
        env: { ...process.env, TMPDIR: temp },
        detached: true,
        stdio: ["ignore", "pipe", "inherit"],
      });
      const folder = () => readdirSync(temp).find((name) => name.startsWith(`signet-lo-${child.pid}-`));
      const office = () => {
        const name = folder();
        return name ? processesMatching(join(temp, name)).filter((line) => /soffice|oosplash/.test(line)) : [];
      };
      try {
        // Killed as soon as a LibreOffice of its folder runs.
        await until(() => office().length > 0, 60_000);
        expect(office().length).toBeGreaterThan(0);
        const name = folder()!;
        process.kill(-child.pid!, "SIGKILL");
        await until(() => processesMatching(join(temp, name)).length === 0, 15_000);
        expect(processesMatching(join(temp, name))).toEqual([]);
        expect(existsSync(join(temp, name))).toBe(true);

        // The next start (any converter in this temp folder) sweeps the dead server's folder.
        const next = createLibreOfficeConverter(officeOptions({ mode: "oneshot", concurrency: 1, tempDir: temp }));
        try {
          expect((await next.convert(unchecked(fixtureDocx(), "docx"), { to: "pdf" })).subarray(0, 5).toString()).toBe("%PDF-");
          expect(existsSync(join(temp, name))).toBe(false);
          expect(readdirSync(temp).filter((entry) => entry.startsWith(`signet-lo-${process.pid}-`))).toHaveLength(1);
        } finally {
          await next.close();
        }
      } finally {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          // already gone
        }
      }
    },
    180_000,
  );
});
