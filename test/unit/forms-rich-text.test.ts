import { readFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { PDF, PdfArray, PdfDict, PdfName, PdfNumber, type PdfObject, PdfStream, PdfString } from "@libpdf/core";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../infra/bundling.ts";
import { listPdfForm } from "#domain/pdf-forms/read-form-file.ts";
import { FORM_TEXT_LIMIT, TEXT_STREAM_LIMIT, xhtmlText } from "#domain/pdf-forms/rich-text.ts";

// Issue 39: a text field whose value is a text stream, or only rich text (/RV, XHTML), is listed
// with its plain text, each stream inflated under a cap per value and per form.

/** formWith is a one-page PDF whose text fields F0, F1, ... hold the given entries (/V, /RV). */
async function formWith(fields: Array<Record<string, PdfObject>>): Promise<Buffer> {
  const doc = PDF.create();
  const page = doc.addPage({ width: 300, height: 300 });
  const refs = fields.map((entries, index) =>
    doc.register(
      PdfDict.of({
        FT: PdfName.of("Tx"),
        T: PdfString.fromString(`F${index}`),
        Type: PdfName.of("Annot"),
        Subtype: PdfName.of("Widget"),
        Rect: new PdfArray([10, 10 + index, 100, 30 + index].map((value) => PdfNumber.of(value))),
        P: page.ref,
        // A stream is always an indirect object.
        ...Object.fromEntries(Object.entries(entries).map(([key, value]) => [key, value instanceof PdfStream ? doc.register(value) : value])),
      }),
    ),
  );
  page.dict.set("Annots", new PdfArray(refs));
  doc.getCatalog().set("AcroForm", doc.register(PdfDict.of({ Fields: new PdfArray(refs) })));
  return Buffer.from(await doc.save());
}

const flate = (doc: Buffer | string) => PdfStream.fromDict({ Filter: PdfName.of("FlateDecode") }, deflateSync(doc));
const valuesOf = async (pdf: Buffer) => (await listPdfForm(pdf)).fields.map((field) => field.value);

describe("rich text as plain text", () => {
  it.each([
    ["<p>DefaultValue</p>", "DefaultValue"],
    [
      '<?xml version="1.0"?><body xmlns="http://www.w3.org/1999/xhtml"><p dir="ltr">Fomatted<span style="font-weight:normal"> Text</span></p></body>',
      "Fomatted Text",
    ],
    ["<body><p>Controlled by:<span>&#xa0;</span></p><p>CUI\n   Category:</p></body>", "Controlled by:\u00a0\nCUI Category:"],
    ["<p>a &lt;b&gt; &amp; &quot;c&quot; &#233;&#x4E2D;<br/>next</p>", 'a <b> & "c" é中\nnext'],
    ["<p>&bogus; &#xD800; &#99999999;</p><!-- <p>hidden</p> -->", "&bogus; &#xD800; &#99999999;"],
  ])("%j is %j", (xhtml, text) => {
    expect(xhtmlText(xhtml)).toBe(text);
  });
});

describe("rich text an attacker shapes", () => {
  // Each input is TEXT_STREAM_LIMIT long, as much as one stream may give. A backtracking pattern
  // takes minutes on some of these (quadratic: about 10^11 steps); the one pass takes milliseconds.
  // The timeout is the test's own bound on this case, far above the linear time on any machine.
  it.each([
    ["unclosed tags", "<".repeat(TEXT_STREAM_LIMIT), ""],
    ["unclosed comments", "<!--".repeat(TEXT_STREAM_LIMIT / 4), ""],
    ["tags closed far away", `${"<a".repeat(TEXT_STREAM_LIMIT / 2 - 1)}>x`, "x"],
    ["spaces made by references", `${"&#32;".repeat(TEXT_STREAM_LIMIT / 5 - 1)}x`, `${" ".repeat(TEXT_STREAM_LIMIT / 5 - 1)}x`],
    ["line breaks", `${"<br/>".repeat(TEXT_STREAM_LIMIT / 5 - 1)}x`, "x"],
  ])(
    "%s: read in one pass",
    (_name, xhtml, text) => {
      expect(xhtmlText(xhtml)).toBe(text);
    },
    60_000,
  );
});

describe("listing text values that are not text strings", () => {
  it("lists the corpus' stream value and rich text fields with their text", async () => {
    const listing = await listPdfForm(readFileSync(join(repoRoot, "test/fixtures/forms/pdfbox-AcroFormsBasicFields.pdf")));
    const value = (name: string) => listing.fields.find((field) => field.name === name)?.value;
    expect(value("RichTextField-Filled")).toBe("Fomatted Text");
    const long = value("LongRichTextField") as string;
    expect(long.startsWith("Lorem ipsum dolor sit amet, consetetur sadipscing elitr")).toBe(true);
    expect(long).toHaveLength(145_396);
  });

  it("reads /V as a stream (plain or Flate, UTF-16 and UTF-8 by their marks) and only /RV when there is no /V", async () => {
    const utf16 = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("Ωmega", "utf16le").swap16()]);
    const pdf = await formWith([
      { V: PdfStream.fromDict({}, new TextEncoder().encode("plain stream")) },
      { V: flate("flate\nstream") },
      { V: flate(utf16) },
      { V: flate(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("naïve", "utf8")])) },
      { RV: PdfString.fromString("<body><p>rich <b>only</b></p></body>") },
      { RV: flate('<?xml version="1.0" encoding="UTF-8"?><body><p>Ünïcode</p><p>two</p></body>') },
      { V: PdfString.fromString("the value"), RV: PdfString.fromString("<p>not this</p>") },
      { V: PdfStream.fromDict({ Filter: PdfName.of("LZWDecode") }, new Uint8Array([1, 2, 3])) },
      {},
    ]);
    expect(await valuesOf(pdf)).toEqual(["plain stream", "flate\nstream", "Ωmega", "naïve", "rich only", "Ünïcode\ntwo", "the value", null, null]);
  });

  it("lists a stream that inflates beyond TEXT_STREAM_LIMIT as null, and stops reading streams once the form's FORM_TEXT_LIMIT is spent", async () => {
    const bomb = await formWith([{ V: flate("A".repeat(TEXT_STREAM_LIMIT + 1)) }, { V: flate("small") }]);
    expect(await valuesOf(bomb)).toEqual([null, "small"]);
    const justUnder = "B".repeat(TEXT_STREAM_LIMIT);
    const count = Math.floor(FORM_TEXT_LIMIT / TEXT_STREAM_LIMIT);
    const many = await formWith([...Array.from({ length: count }, () => ({ V: flate(justUnder) })), { V: flate("one more") }]);
    const values = await valuesOf(many);
    expect(values.slice(0, count).every((value) => value === justUnder)).toBe(true);
    expect(values[count]).toBeNull();
  });
});
