// The certificate page's font subsets are made once per process (pdf-text/font-subsets.ts): a
// signing that draws the same glyphs gets copies of the objects an earlier one made. Checked with
// the readers themselves: pdffonts (embedded, subset, ToUnicode), pdftotext and MuPDF (the text
// extracts as typed, through the copied ToUnicode maps), qpdf --check and pyHanko.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PDF } from "@libpdf/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drawAuditCertificate } from "#domain/certificate-page/audit-certificate.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { signDocument, type SignDependencies, type SignInput } from "#domain/signing/sign-document.ts";
import { generateIdentity, type SigningIdentity } from "#domain/signing/signing-identity.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { hasMutool, mutoolText, pdfFonts, pdfText } from "#test/helpers/pdf-tools.ts";
import { expectPyhanko } from "#test/helpers/signature-checks.ts";
import { testFonts } from "#test/helpers/test-fonts.ts";

let identity: SigningIdentity;
let input: Buffer;
const folder = mkdtempSync(join(tmpdir(), "signet-font-subsets-"));

beforeAll(async () => {
  identity = await generateIdentity({ keyType: "EC" });
  input = await makePdf(1);
}, 30_000);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const noFetch: Fetcher = { fetch: () => Promise.reject(new Error("no fetch in this test")) };

const deps: SignDependencies = {
  fetcher: noFetch,
  converter: { convert: () => Promise.reject(new Error("no conversion in this test")) },
  identities: { load: async () => identity },
  fonts: testFonts,
  limits: {
    maxDocumentBytes: 25 * 1024 * 1024,
    maxEntries: 5000,
    maxUncompressedBytes: 200 * 1024 * 1024,
    maxImagePixels: 100_000_000,
    maxSvgBytes: 10 * 1024 * 1024,
    maxAuditEvents: 100,
    maxMetadataBytes: 16 * 1024,
  },
  now: () => new Date("2026-11-22T10:00:00Z"),
};

// A mirrored bracket in right-to-left text draws through a twin font (its own subset and ToUnicode).
function request(name: string): SignInput {
  return {
    document: { base64: input.toString("base64") },
    signer: { name, email: "signer@example.com" },
    auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:59:30Z", data: { note: "שלום (עולם)" } }],
  };
}

/** fonts is pdffonts' table of a file, the certificate page's fonts only (the input's page uses Helvetica): each row's name (with its subset tag) and emb/sub/uni columns. */
async function fonts(pdf: Buffer): Promise<Array<{ name: string; flags: string }>> {
  const rows = (await pdfFonts(pdf)).trim().split("\n").slice(2);
  const certificate = rows.filter((row) => !row.startsWith("Helvetica "));
  expect(certificate.length).toBeGreaterThanOrEqual(3);
  return certificate.map((row) => {
    const flags = /\s(yes|no)\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/.exec(row);
    return { name: row.split(/\s+/)[0]!, flags: flags ? flags.slice(1, 4).join(" ") : row };
  });
}

function qpdfCheck(pdf: Buffer, name: string): string {
  const path = join(folder, name);
  writeFileSync(path, pdf);
  return execFileSync("qpdf", ["--check", path], { encoding: "utf8" });
}

const plain = (text: string) => text.replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069\s]/g, "");

describe("certificate page font subsets made once per process", () => {
  it("gives a second signing of the same glyphs copies of the first one's subsets, and each file reads the same", async () => {
    const first = (await signDocument(request("Ada Lovelace"), deps)).toString("base64");
    const again = await signDocument(request("Ada Lovelace"), deps);
    const firstBytes = Buffer.from(first, "base64");
    const [firstFonts, againFonts] = [await fonts(firstBytes), await fonts(again)];
    // Every font embedded, subset and with a ToUnicode map, in both.
    for (const font of [...firstFonts, ...againFonts]) expect(font.flags, font.name).toBe("yes yes yes");
    // The copies carry the first subset's names: libpdf would draw a new random tag for each (26^6).
    expect(againFonts.map((font) => font.name).sort()).toEqual(firstFonts.map((font) => font.name).sort());
    expect(plain(await pdfText(again))).toBe(plain(await pdfText(firstBytes)));
    expect(plain(await pdfText(again, { first: 2 }))).toContain("AdaLovelace");
    if (hasMutool) expect(await mutoolText(again)).toBe(await mutoolText(firstBytes));
    expect(qpdfCheck(again, "again.pdf")).toMatch(/No syntax or stream encoding errors found/);
    expectPyhanko(again, { holds: "a signing with copied font subsets is valid" });
  }, 60_000);

  it("makes a new subset when other glyphs are drawn, and its text extracts as typed", async () => {
    const ada = await fonts(await signDocument(request("Ada Lovelace"), deps));
    const other = await signDocument(request("Zoë Quixote-Wójcik"), deps);
    const otherFonts = await fonts(other);
    for (const font of otherFonts) expect(font.flags, font.name).toBe("yes yes yes");
    // The regular font draws other glyphs here: another subset (another tag), not a stale copy.
    const regular = (list: Array<{ name: string }>) => list.map((font) => font.name).find((name) => /\+DejaVuSans$/.test(name));
    expect(regular(otherFonts)).toBeDefined();
    expect(regular(otherFonts)).not.toBe(regular(ada));
    const text = plain(await pdfText(other, { first: 2 }));
    expect(text).toContain("ZoëQuixote-Wójcik");
    expect(text).toContain("signer@example.com");
    if (hasMutool) expect(plain(await mutoolText(other))).toContain("ZoëQuixote-Wójcik");
  }, 60_000);

  it("keeps no subset over 64 KB (a page of thousands of CJK glyphs), so the cache stays small", async () => {
    // 3,000 distinct ideographs from U+4E00: DroidSansFallback's subset of them is far over 64 KB.
    const ideographs = Array.from({ length: 3000 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join("");
    const page = async () => {
      const pdf = PDF.create();
      drawAuditCertificate(
        pdf,
        {
          documentSha256: "ab".repeat(32),
          documentPages: 1,
          signer: { name: "Ada Lovelace", email: "ada@example.com" },
          events: [{ type: "submit", timestamp: "2026-11-22T10:00:00Z", data: { note: ideographs } }],
          signingTime: new Date("2026-11-22T10:00:00Z"),
          service: { subject: "CN=Signet Test", fingerprint: "00".repeat(32), algorithm: "ECDSA P-256" },
        },
        testFonts(),
      );
      return fonts(Buffer.from(await pdf.save({ subsetFonts: true })));
    };
    const [first, again] = [await page(), await page()];
    const named = (list: Array<{ name: string }>, family: RegExp) => list.map((font) => font.name).find((name) => family.test(name));
    // The large CJK subset is made again (a new random tag); the small Latin one is copied.
    expect(named(again, /\+DroidSansFallback/)).toBeDefined();
    expect(named(again, /\+DroidSansFallback/)).not.toBe(named(first, /\+DroidSansFallback/));
    expect(named(again, /\+DejaVuSans-Bold$/)).toBe(named(first, /\+DejaVuSans-Bold$/));
  }, 60_000);
});
