// The certificate page's layout.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { PDF } from "@libpdf/core";
import { describe, expect, it } from "vitest";
import { drawAuditCertificate, type AuditCertificate, type PageSize } from "#domain/certificate-page/audit-certificate.ts";
import { pdfText } from "#test/helpers/pdf-tools.ts";
import { testFonts } from "#test/helpers/test-fonts.ts";

const run = promisify(execFile);
const fonts = testFonts();

function certificate(extra: Partial<AuditCertificate> = {}): AuditCertificate {
  return {
    documentSha256: "ab".repeat(32),
    documentPages: 2,
    signer: { name: "Ada Lovelace", email: "ada@example.com" },
    events: [
      { type: "ready", timestamp: "2026-11-22T09:55:00Z" },
      { type: "submit", timestamp: "2026-11-22T09:59:30Z", data: { button: "Finish" } },
    ],
    signingTime: new Date("2026-11-22T10:00:00Z"),
    service: { subject: "CN=Signet Test", fingerprint: "cd".repeat(32), algorithm: "ECDSA P-256" },
    ...extra,
  };
}

async function draw(input: AuditCertificate, pageSize?: PageSize): Promise<Uint8Array> {
  const pdf = PDF.create();
  drawAuditCertificate(pdf, input, fonts, pageSize);
  return pdf.save({ subsetFonts: true });
}

async function pageSizes(bytes: Uint8Array): Promise<string[]> {
  const { mkdtemp, writeFile, rm } = await import("node:fs/promises");
  const { join } = await import("node:path");
  const { tmpdir } = await import("node:os");
  const dir = await mkdtemp(join(tmpdir(), "signet-layout-"));
  try {
    await writeFile(join(dir, "a.pdf"), bytes);
    const { stdout } = await run("pdfinfo", ["-f", "1", "-l", "999", join(dir, "a.pdf")]);
    return [...stdout.matchAll(/Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts/g)].map(
      (match) => `${Math.round(Number(match[1]))}x${Math.round(Number(match[2]))}`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("certificate layout", () => {
  it.each([
    { name: "US Letter landscape", size: { width: 792, height: 612 }, expected: "792x612" },
    { name: "A3 portrait", size: { width: 841.89, height: 1190.55 }, expected: "842x1191" },
    { name: "a page too small for the layout (A4 instead)", size: { width: 200, height: 300 }, expected: "595x842" },
    { name: "no size given (A4)", size: undefined, expected: "595x842" },
  ])("takes the document's page size: $name", async ({ size, expected }) => {
    const bytes = await draw(
      certificate({ events: Array.from({ length: 80 }, (_, i) => ({ type: "scroll", timestamp: `2026-11-22T09:${String(i % 60).padStart(2, "0")}:00Z` })) }),
      size,
    );
    const sizes = await pageSizes(bytes);
    expect(sizes.length).toBeGreaterThan(1);
    for (const found of sizes) expect(found).toBe(expected);
  });

  it("says which times the client reported and which the server's clock gave, and how to verify", async () => {
    const text = await pdfText(await draw(certificate()));
    expect(text).toContain("Times as the client reported them, in UTC.");
    expect(text).toContain("2026-11-22 10:00:00 UTC (server clock)");
    expect(text).toContain("HOW TO VERIFY");
    expect(text).toContain("POST /v1/verify");
    expect(text.replace(/\s/g, "")).toContain(`SHA-256mustbe${"cd".repeat(32)}`);
  });

  it("shows the converted PDF's SHA-256 and the signatures already in the document when given", async () => {
    const text = await pdfText(
      await draw(
        certificate({
          convertedPdfSha256: "ef".repeat(32),
          existingSignatures: [{ signer: "Grace Hopper", signedAt: new Date("2026-11-01T08:00:00Z") }, { signer: "" }],
        }),
      ),
    );
    expect(text.replace(/\s/g, "")).toContain("ef".repeat(32));
    expect(text).toContain("SIGNATURES ALREADY IN THE DOCUMENT (2)");
    expect(text).toContain("Grace Hopper · 2026-11-01 08:00:00 UTC");
    expect(text).toContain("unnamed signer");
  });

  it("never leaves the audit trail heading at the foot of a page without two rows", async () => {
    // Metadata of growing length pushes the heading to every position near the foot of page 1.
    for (let entries = 14; entries <= 30; entries++) {
      const metadata = Object.fromEntries(Array.from({ length: entries }, (_, i) => [`key${i}`, `value ${i}`]));
      const bytes = await draw(certificate({ metadata }));
      for (let page = 1; page <= 2; page++) {
        const text = await pdfText(bytes, { first: page, last: page });
        if (!text.includes("AUDIT TRAIL (")) continue;
        expect(text, `${entries} entries, page ${page}`).toContain("ready");
        expect(text, `${entries} entries, page ${page}`).toContain("submit");
      }
    }
  });
});
