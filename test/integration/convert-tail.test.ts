// Documents that crash a load over UNO in the warm LibreOffice, against the
// real LibreOffice: recognised ones (DOCX with comments) are handed over to the warm instance as a
// --convert-to job; others crash it once, are retried one-shot on the slot's initialised profile,
// remembered, and handed over next time. The warm instance survives hand-overs.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createLibreOfficeConverter } from "#adapters/libreoffice/converter.ts";
import { logger } from "#adapters/powertools-logger.ts";
import { commentText, commentedDocx, fixtureDocx, hideComments } from "#test/helpers/convert-fixtures.ts";
import { pdfText } from "#test/helpers/pdf-tools.ts";
import { processesMatching, until } from "#test/helpers/convert-runtime.ts";
import { officeOptions } from "#test/helpers/office-options.ts";

const root = mkdtempSync(join(tmpdir(), "signet-convert-tail-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// A DOCX with a Word comment: it crashes a warm (UNO) LibreOffice 7.4 every time (commentedDocx).
const crasher = commentedDocx();

describe("a document that crashes the warm LibreOffice", () => {
  it("is handed over to the warm instance when recognised, else retried once and remembered; the instance stays or comes back", async () => {
    const workDir = join(root, "work");
    const converter = createLibreOfficeConverter(officeOptions({ mode: "warm", concurrency: 1, timeoutMs: 90_000, workDir }));
    const warn = vi.spyOn(logger, "warn");
    const crashes = () => warn.mock.calls.filter(([message]) => String(message).includes("failed during a conversion")).length;
    const warmInstances = () =>
      processesMatching(join(workDir, "profiles", "warm-0"))
        .filter((line) => line.split(/\s+/)[2]?.endsWith("/soffice.bin") && line.includes("--accept=pipe"))
        .map((line) => line.split(/\s+/)[0]);
    try {
      await converter.warm();
      const started = warmInstances();
      // Recognised (a DOCX with comments): handed over to the warm instance on first sight, no crash.
      const handedOver = await converter.convert({ bytes: crasher, from: "docx", to: "pdf" });
      expect(handedOver.subarray(0, 5).toString()).toBe("%PDF-");
      expect(await pdfText(handedOver)).toContain(commentText.anchor);
      expect(crashes()).toBe(0);
      expect(warmInstances()).toEqual(started);

      // Not recognised (comments under another part name): crashes once, retried one-shot.
      const hidden = hideComments(crasher);
      const first = await converter.convert({ bytes: hidden, from: "docx", to: "pdf" });
      expect(first.subarray(0, 5).toString()).toBe("%PDF-");
      expect(crashes()).toBe(1);
      // The retry ran on the slot's warm profile: no separate, uninitialised one-shot profile.
      expect(existsSync(join(workDir, "profiles", "oneshot-0"))).toBe(false);
      // The warm instance stopped for the document is started again without waiting for a request.
      await until(() => warmInstances().length > 0, 30_000);
      const instance = warmInstances();
      expect(instance.length).toBeGreaterThan(0);
      // Remembered now: handed over to the warm instance (a --convert-to job), which survives it.
      const again = await converter.convert({ bytes: hidden, from: "docx", to: "pdf" });
      expect(again.subarray(0, 5).toString()).toBe("%PDF-");
      expect(crashes()).toBe(1);
      expect(warn.mock.calls.filter(([message]) => String(message).includes("could not take a document over"))).toEqual([]);
      expect(warmInstances()).toEqual(instance);
      const pdf = await converter.convert({ bytes: fixtureDocx(), from: "docx", to: "pdf" });
      expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
      expect(crashes()).toBe(1);
      expect(converter.state().mode).toBe("warm");
    } finally {
      warn.mockRestore();
      await converter.close();
    }
  }, 180_000);
});
