// npm run bench:certificate — the cost of drawing the audit trail certificate page(s) for 10 and
// 300 events (mixed scripts: Latin, Hebrew, Arabic, CJK, Devanagari, emoji), warm, median and p95
// of drawAuditCertificate alone and of drawing + saving with subset fonts (as signing saves); then
// 10 events with CJK Extension B, drawn from SIGNET_EXTRA_FONTS_DIR (HanaMinB locally): the first
// page of a process (reading and parsing the 30 MB font) and warm.
import { PDF } from "@libpdf/core";
import { drawAuditCertificate, type AuditCertificate } from "#domain/certificate-page/audit-certificate.ts";
import { DocumentFonts } from "#domain/pdf-text/fonts.ts";
import { testFonts } from "#test/helpers/test-fonts.ts";

const files = testFonts();
const samples = [
  "Opened the document",
  "חוזה שכירות מס׳ 42 — גרסה 3",
  "توقيع العقد رقم 42",
  "契約書 第42条に同意",
  "अनुबंध पर हस्ताक्षर",
  "Signed ✅ 🚀",
  "Zoë Ångström-Núñez",
];

function certificate(events: number, values: readonly string[] = samples): AuditCertificate {
  return {
    documentName: "Master Services Agreement",
    documentSha256: "ab".repeat(32),
    documentPages: 3,
    signer: { name: "Zoë Ångström", email: "zoe@example.com", ip: "203.0.113.7", userAgent: "Mozilla/5.0 (X11; Linux x86_64)" },
    events: Array.from({ length: events }, (_, i) => ({
      type: i === events - 1 ? "submit" : "field_change",
      timestamp: new Date(Date.UTC(2026, 10, 22, 9, 0, i)).toISOString(),
      data: { field: `field_${i}`, value: values[i % values.length]! },
    })),
    signingTime: new Date("2026-11-22T10:00:00Z"),
    service: { subject: "CN=Signet Local Signing", fingerprint: "00".repeat(32), algorithm: "ECDSA P-256" },
    metadata: { contract: "C-42" },
  };
}

function stats(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * q) - 1)]!;
  return `median ${at(0.5).toFixed(1)} ms, p95 ${at(0.95).toFixed(1)} ms`;
}

async function measure(label: string, input: AuditCertificate): Promise<void> {
  const draw: number[] = [];
  const total: number[] = [];
  let pages = 0;
  let bytes = 0;
  let first = "";
  for (let run = 0; run < 25; run++) {
    const pdf = PDF.create();
    const start = performance.now();
    drawAuditCertificate(pdf, input, files);
    const drawn = performance.now();
    const saved = await pdf.save({ subsetFonts: true });
    const end = performance.now();
    if (run === 0) first = `first in this process ${(end - start).toFixed(1)} ms`;
    if (run < 5) continue; // warm-up
    draw.push(drawn - start);
    total.push(end - start);
    pages = pdf.getPageCount();
    bytes = saved.length;
  }
  console.log(`${label} (${pages} pages, ${(bytes / 1024).toFixed(0)} KB): draw ${stats(draw)}; draw + save ${stats(total)}; ${first}`);
}

for (const events of [10, 300]) await measure(`${events} events`, certificate(events));
const extB = ["𠮷野家で契約 𠀋", "Opened the document", "𠀀𠀁𠀂 signed"];
await measure("10 events with CJK Extension B", certificate(10, extB));
if (!new DocumentFonts(PDF.create(), files).covers("𠮷"))
  console.log("  (no font covers Extension B: drawn as placeholders; install fonts-hanazono or set SIGNET_EXTRA_FONTS_DIR)");
console.log(`RSS ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB`);
