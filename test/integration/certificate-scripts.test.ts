// The certificate page in every script. Each family's values are drawn on a certificate
// page; pdftotext must give back the logical string (NFC) and pdffonts must show every font embedded.
import { PDF } from "@libpdf/core";
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { drawAuditCertificate, VALUE_LIMIT } from "#domain/certificate-page/audit-certificate.ts";
import { DocumentFonts } from "#domain/pdf-text/fonts.ts";
import { hasMutool, MUTOOL_MISSING, mutoolChars, mutoolText, pdfFonts, pdfText } from "#test/helpers/pdf-tools.ts";
import { testFonts } from "#test/helpers/test-fonts.ts";

const run = promisify(execFile);
const OUTPUT = new URL("../../test-output/certificate-scripts/", import.meta.url);

async function certificate(name: string, values: string[]): Promise<{ text: string; mupdf: string; fonts: string }> {
  const pdf = PDF.create();
  drawAuditCertificate(
    pdf,
    {
      documentSha256: "ab".repeat(32),
      documentPages: 1,
      signer: { name: values[0]!, email: "signer@example.com" },
      events: values.map((value) => ({ type: "field_change", timestamp: "2026-11-22T10:00:00Z", data: { value } })),
      signingTime: new Date("2026-11-22T10:00:00Z"),
      service: { subject: "CN=Signet Test", fingerprint: "00".repeat(32), algorithm: "ECDSA P-256" },
      metadata: Object.fromEntries(values.map((value, i) => [`value${i}`, value])),
    },
    testFonts(),
  );
  const bytes = await pdf.save({ subsetFonts: true }); // as signing saves it
  mkdirSync(OUTPUT, { recursive: true });
  const file = new URL(`${name}.pdf`, OUTPUT);
  writeFileSync(file, bytes);
  // Rendered pages stay beside the PDF for a look (test-output/ is not committed).
  await run("pdftoppm", ["-png", "-r", "72", fileURLToPath(file), fileURLToPath(new URL(name, OUTPUT))]);
  return { text: await pdfText(bytes), mupdf: hasMutool ? await mutoolText(bytes) : "", fonts: await pdfFonts(bytes) };
}

// pdftotext marks right-to-left runs with embedding controls (U+202B ... U+202C), which are not
// text, and may move a space where the direction changes: compare without either.
const plain = (text: string) => text.replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069\s]/g, "");

/** expectAllEmbedded checks pdffonts' "emb" column: every font program is in the file. */
function expectAllEmbedded(fonts: string): void {
  const rows = fonts.trim().split("\n").slice(2);
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) expect(row, row).toMatch(/\s+yes\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+\s*$/);
}

// MuPDF 1.21 (mutool) ignores /ActualText: it reads each glyph's ToUnicode entry in drawing order,
// and the invisible text under HarfBuzz-shaped outlines. Every family must come back from both.
const FAMILIES = [
  {
    family: "Latin with accents (NFD input comes back NFC)",
    values: ["Zoë Ångström-Núñez", "Zoe\u0308 Franc\u0327ois Dvořák", "Łódź, Ærøskøbing, İstanbul"],
  },
  { family: "Greek", values: ["Πέτρος Παπαδόπουλος", "Σύμβαση μίσθωσης αρ. 42"] },
  { family: "Cyrillic", values: ["Иван Петров", "Договор аренды № 42 — версия 3"] },
  {
    family: "Hebrew and Arabic inside left-to-right text",
    values: ["Name: חוזה שכירות 42", "Signer: محمد علي توقيع (2024)", "Ref ABC-7 שלום 12 עולם"],
  },
  {
    family: "Hebrew and Arabic paragraphs with numbers, dashes and Latin",
    values: [
      "חוזה שכירות מס׳ 42 — גרסה 3",
      "توقيع العقد رقم 7 في 2026",
      "توقيع العقد رقم 42 لشركة ACME",
      "שָׁלוֹם (עולם) 7",
      "لا إله إلا",
      "مُحَمَّد",
      "חוזה עם ACME Corp בע״מ מס׳ 7",
    ],
  },
  { family: "CJK (BMP)", values: ["山田太郎", "契約書 第42条", "서명 완료"] },
  // U+20BB7 and U+2000B come from HanaMinB (SIGNET_EXTRA_FONTS_DIR; fonts-hanazono locally).
  { family: "CJK Extension B", values: ["𠮷野家 𠀋 第𠀀条", "吉田 𠮷田"] },
  { family: "Devanagari", values: ["अनुबंध पर हस्ताक्षर", "श्री कृष्ण क्षत्रिय"] },
  { family: "Tamil", values: ["ஒப்பந்தம் கையொப்பம்", "தமிழ் நாடு"] },
  { family: "Thai", values: ["สัญญาเช่า ฉบับที่ 42", "ลงนามแล้ว"] },
  { family: "emoji (monochrome Noto Emoji)", values: ["Signed 🚀 ✅ 😀 ❤️"] },
  { family: "emoji sequences (skin tone, flag)", values: ["👍🏽 🇩🇪 🎉 🧾"] },
];

describe("certificate page text comes back as typed (pdftotext), every font embedded (pdffonts)", () => {
  it.each(FAMILIES)("$family", async ({ family, values }) => {
    const { text, fonts } = await certificate(family.replace(/\W+/g, "-"), values);
    const extracted = plain(text);
    for (const value of values) expect(extracted).toContain(plain(value.normalize("NFC")));
    expectAllEmbedded(fonts);
  });

  it.each(FAMILIES)("$family (MuPDF: mutool draw -F txt)", async ({ family, values }) => {
    expect(hasMutool, MUTOOL_MISSING).toBe(true);
    const { mupdf } = await certificate(`${family.replace(/\W+/g, "-")}-mupdf`, values);
    // MuPDF puts each line on its own: each value must be one whole line, both where it is its
    // own paragraph (metadata: MuPDF joins a right-to-left value to its "value<i>" label) and
    // inside a left-to-right one (event details: "value: ...").
    const lines = mupdf.split("\n").map(plain);
    values.forEach((value, index) => {
      const typed = plain(value.normalize("NFC"));
      expect(lines.includes(typed) || lines.includes(`value${index}${typed}`), `metadata value${index}\n${mupdf}`).toBe(true);
      expect(lines, `event details\n${mupdf}`).toContain(`value:${typed}`);
    });
  });

  it("draws CJK Extension B with an embedded HanaMinB subset (fonts-hanazono: node scripts/setup.mjs installs it)", async () => {
    const { text, fonts } = await certificate("cjk-extension-b-font", ["𠮷野家 𠀋"]);
    expect(fonts, "no HanaMin font embedded: is fonts-hanazono installed (SIGNET_EXTRA_FONTS_DIR)?").toMatch(
      /\+HanaMin[AB]\s+CID TrueType\s+Identity-H\s+yes yes yes/,
    );
    expect(plain(text)).toContain("𠮷野家𠀋");
    expect(text).not.toContain("\ufffd");
  });

  it("a character no font has (Egyptian hieroglyphs) is a visible placeholder that extracts as U+FFFD", async () => {
    const { text, fonts } = await certificate("no-font", ["Name 𓀀𓀁 end"]);
    expect(plain(text)).toContain(plain("Name \ufffd\ufffd end"));
    expect(text).not.toContain("𓀀");
    expectAllEmbedded(fonts);
  });

  it("draws no glyph 0 (notdef) for a character some bundled font covers", () => {
    const fonts = new DocumentFonts(PDF.create(), testFonts());
    const sample = "Zoë Πέτρος Иван חוזה محمد 山田 서명 अनुबंध தமிழ் สัญญา 🚀😀🇩🇪👍🏽 𠀀𠮷";
    for (const style of ["regular", "bold", "mono"] as const) {
      for (const run of fonts.runs(sample, style, 10)) {
        // A shaped run draws HarfBuzz's glyphs as outlines and its text invisibly in cmap glyphs: neither may be 0.
        const gids = [...(run.glyphs ?? []).map((glyph) => glyph.gid), ...run.font.encodeTextToGids(run.text)];
        expect(gids, `${style}: ${run.text}`).not.toContain(0);
      }
    }
    expect(fonts.typed("a𓀀b")).toBe("a\ufffdb");
    expect(fonts.typed("a𠮷b")).toBe("a𠮷b");
    expect(fonts.typed("❤️")).toBe("❤️");
  });

  it("reads an extra fallback font only when a page needs a character the others lack", () => {
    let reads = 0;
    const base = testFonts();
    const files = {
      ...base,
      fallbacks: [
        ...(base.fallbacks ?? []),
        () => {
          reads++;
          return base.cjk;
        },
      ],
    };
    const fonts = new DocumentFonts(PDF.create(), files);
    fonts.runs("Zoë Πέτρος 山田 🚀", "regular", 10);
    expect(reads).toBe(0);
    fonts.runs("𓀀", "regular", 10); // no font has it: every fallback is asked
    expect(reads).toBe(1);
  });

  it("shapes Devanagari with HarfBuzz: a conjunct is one glyph, the i-matra is drawn before its consonant", () => {
    const fonts = new DocumentFonts(PDF.create(), testFonts());
    const [conjunct] = fonts.runs("क्ष", "regular", 10);
    expect(conjunct!.glyphs).toHaveLength(1);
    const [syllable] = fonts.runs("कि", "regular", 10);
    const [ka] = fonts.runs("क", "regular", 10);
    // Unshaped, the i-matra would follow the consonant; HarfBuzz draws it first (left of it).
    expect(syllable!.glyphs).toHaveLength(2);
    expect(syllable!.glyphs![1]!.gid).toBe(ka!.font.encodeTextToGids("क")[0]);
    expect(syllable!.glyphs![0]!.x).toBeLessThan(syllable!.glyphs![1]!.x);
  });

  it("puts a right-to-left letter's marks on it, not after it (Hebrew points, Arabic harakat)", async () => {
    expect(hasMutool, MUTOOL_MISSING).toBe(true);
    await certificate("rtl-marks", ["שָׁלוֹם", "مُحَمَّد"]);
    const chars = await mutoolChars(fileURLToPath(new URL("rtl-marks.pdf", OUTPUT)));
    let checked = 0;
    chars.forEach((base, index) => {
      if (/\p{M}/u.test(base.char)) return;
      for (const mark of chars.slice(index + 1)) {
        if (!/\p{M}/u.test(mark.char)) break;
        // Drawn at the base's origin (as HarfBuzz places them), inside the base's width.
        expect(mark.x, `${base.char} ${mark.char}`).toBeGreaterThanOrEqual(base.x - 0.5);
        expect(mark.x, `${base.char} ${mark.char}`).toBeLessThan(base.right - 0.5);
        checked++;
      }
    });
    expect(checked).toBeGreaterThanOrEqual(6);
  });

  it("right-to-left paragraphs with numbers, dashes and Latin come back in logical order, in base letters", async () => {
    const values = ["חוזה שכירות מס׳ 42 — גרסה 3", "توقيع العقد رقم 42 لشركة ACME", "שָׁלוֹם (עולם) 7"];
    const { text, fonts } = await certificate("rtl-paragraphs", values);
    const extracted = plain(text);
    for (const value of values) expect(extracted).toContain(plain(value));
    expect(extracted).toContain("توقيع");
    expect(extracted).not.toMatch(/[\ufb50-\ufdff\ufe70-\ufeff]/);
    expectAllEmbedded(fonts);
  });
});

describe("long values are never cut silently", () => {
  const words = (count: number) => Array.from({ length: count }, (_, i) => `word${i}`).join(" ");

  it("wraps a 2,000-character event value and metadata value in full", async () => {
    const value = words(260).slice(0, 2000);
    const { text } = await certificate("long-2000", [value]);
    const extracted = plain(text);
    // The value is drawn three times (signer name, event details, metadata): all in full.
    expect(extracted.split(plain(value)).length - 1).toBe(3);
  });

  it(`shows the first ${VALUE_LIMIT} characters of a longer value and the SHA-256 of the whole`, async () => {
    const value = words(2000);
    const { text } = await certificate("long-over-limit", [value]);
    const extracted = plain(text);
    const digest = createHash("sha256").update(value).digest("hex");
    // The metadata value runs over pages (footers in between): check where it starts and ends.
    expect(extracted).toContain(`value0${plain(value.slice(0, 200))}`);
    expect(extracted).toContain(plain(`${value.slice(VALUE_LIMIT - 40, VALUE_LIMIT)}… (truncated; SHA-256 of the full value: ${digest})`));
    expect(extracted).not.toContain(value.slice(VALUE_LIMIT - 5, VALUE_LIMIT + 5).replace(/\s/g, ""));
  });
});
