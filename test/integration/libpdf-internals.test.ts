// Canary for @libpdf/core's non-public state (functions/domain/pdf/libpdf-internals.ts): it fails
// loudly when an upgrade moves any of it, before signing breaks in subtler ways.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { PDF, PdfArray, PdfDict, PdfNumber, PdfString, type EmbeddedFont } from "@libpdf/core";
import { beforeAll, describe, expect, it } from "vitest";
import {
  exactPdfNumber,
  allowIncrementalOnLinearized,
  checkLibpdfInternals,
  fieldRefOf,
  LIBPDF_VERSION,
  newObjectsOf,
  pageTreeOf,
  prepareEncryptedUpdate,
  rebaseOnto,
  extractGlyphAs,
  registerEmbeddedFont,
  signatureDictOf,
  trailerOf,
} from "#domain/pdf/libpdf-internals.ts";
import { generateIdentity, type SigningIdentity } from "#domain/signing/signing-identity.ts";
import { signPdf } from "#domain/signing/pades-signer.ts";
import { openPdfFile } from "#domain/pdf/open-pdf.ts";
import { withReadableXref } from "#domain/pdf/readable-xref.ts";
import { pdfText } from "#test/helpers/pdf-tools.ts";
import { wideXrefStream } from "#test/helpers/real-world-pdfs.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { qpdfEncrypt } from "#test/helpers/pdf-passwords.ts";
import { testFonts } from "#test/helpers/test-fonts.ts";

let identity: SigningIdentity;
let signed: Buffer;

beforeAll(async () => {
  identity = await generateIdentity({ keyType: "EC" });
  signed = await signPdf(await makePdf(2), { identity, signingTime: new Date("2026-11-22T10:00:00Z"), signerName: "Canary", reason: "canary" });
}, 30_000);

describe("@libpdf/core internals", () => {
  it("runs against the exact version they were written for (package.json pins it)", () => {
    const installed = (createRequire(import.meta.url)("@libpdf/core/package.json") as { version: string }).version;
    expect(
      installed,
      `@libpdf/core ${installed} is installed; libpdf-internals.ts was written for ${LIBPDF_VERSION}. Re-check every accessor there, then update LIBPDF_VERSION and the pin.`,
    ).toBe(LIBPDF_VERSION);
    const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { dependencies: Record<string, string> };
    expect(manifest.dependencies["@libpdf/core"]).toBe(LIBPDF_VERSION);
  });

  it("writes every number with the decimals its value needs (libpdf's own writer keeps 5)", async () => {
    const rows: Array<[number, string]> = [
      [612, "612"],
      [0.5, "0.5"],
      [0.899994, "0.899994"],
      [0.860001, "0.860001"],
      [-0.0000001, "-0.0000001"],
      [1 / 3, "0.3333333333"],
      [1e-12, "0"],
      [595.276, "595.276"],
    ];
    for (const [value, text] of rows) expect(exactPdfNumber(value), String(value)).toBe(text);
    // The serialiser libpdf uses for objects: a saved document keeps the value.
    const pdf = PDF.create();
    pdf.addPage();
    pdf.getCatalog().set("MK", PdfDict.of({ BG: PdfArray.of(PdfNumber.of(0.899994), PdfNumber.of(0.860001)) }));
    const saved = Buffer.from(await pdf.save()).toString("latin1");
    expect(saved).toMatch(/\/BG \[0\.899994 0\.860001\]/);
  });

  it("finds every private member on a real signed document", async () => {
    const pdf = await PDF.load(signed);
    expect(() => checkLibpdfInternals(pdf)).not.toThrow();

    const tree = pageTreeOf(pdf);
    expect(tree.pages).toHaveLength(2);
    expect(typeof tree.flattened).toBe("boolean");
    expect(tree.getPageDict(tree.pages[0]!)).toBeInstanceOf(PdfDict);
    expect(trailerOf(pdf).get("Root")).toBeDefined();

    const [field] = pdf.getForm()!.getFields();
    expect(fieldRefOf(field!)).not.toBeNull();
    expect(signatureDictOf(field!)?.get("ByteRange")).toBeDefined();

    allowIncrementalOnLinearized(pdf);
    expect((pdf as unknown as { _isLinearized: boolean })._isLinearized).toBe(false);
  });

  it("registers an already parsed font so the save writes it, and lists what the session created", async () => {
    const pdf = await PDF.load(await makePdf(1));
    expect(newObjectsOf(pdf).size).toBe(0);
    const data = testFonts().regular;
    const probe = PDF.create().embedFont(data);
    const font = new (probe.constructor as new (program: EmbeddedFont["program"], data: Uint8Array) => EmbeddedFont)(probe.program, data);
    registerEmbeddedFont(pdf, font);
    expect(font.ref).toBeDefined(); // throws when the font was not registered
    pdf.getPage(0)!.drawText("canary", { font, x: 10, y: 10, size: 10 });
    expect(newObjectsOf(pdf).size).toBeGreaterThan(0);
    expect(() => checkLibpdfInternals(pdf)).not.toThrow(); // EmbeddedFont.usedGlyphs
    // extractGlyphAs: the glyph of "y" now extracts as "Y" (ToUnicode), the others as themselves.
    extractGlyphAs(font, font.encodeTextToGids("y")[0]!, 0x59);
    const saved = Buffer.from(await pdf.save({ incremental: true, subsetFonts: true }));
    expect(saved.toString("latin1")).toContain("/FontFile2");
    expect(await pdfText(saved)).toContain("canarY");
  });

  it("still refuses cross-reference stream fields wider than 6 bytes; rebaseOnto makes the update append to the original bytes", async () => {
    // When libpdf reads /W [1 8 2] itself (the first expectation fails), open-pdf.ts no longer needs
    // its view through readable-xref.ts: remove loadThroughOwnXref's wide-field branch and rebaseOnto.
    const input = wideXrefStream().bytes;
    expect((await PDF.load(input)).recoveredViaBruteForce).toBe(true);
    const file = openPdfFile(input);
    expect(file.widestField).toBe(8);
    const pdf = await PDF.load(withReadableXref(file));
    expect(pdf.recoveredViaBruteForce).toBe(false);
    rebaseOnto(pdf, input, file.startxref, file.newestIsStream);
    pdf.getCatalog().set("Lang", PdfString.fromString("en"));
    const saved = Buffer.from(await pdf.save({ incremental: true }));
    expect(saved.subarray(0, input.length).equals(input)).toBe(true);
    expect(saved.subarray(input.length).toString("latin1")).toContain(`/Prev ${file.startxref}`);
    expect((openPdfFile(saved).latest.catalog.get("Lang") as PdfString).asString()).toBe("en");
  });

  it("an encrypted document's update holds only what changed: read objects stay unchanged, its own /Encrypt is kept", async () => {
    // When libpdf stops marking what it decrypts as modified and keeps /Encrypt itself, the first
    // expectations fail and prepareEncryptedUpdate can go.
    const encrypted = await qpdfEncrypt(await makePdf(1), "user-pw", "owner-pw", "rc4-128");
    const input = await signPdf(encrypted, {
      identity,
      signingTime: new Date("2026-11-22T10:00:00Z"),
      signerName: "Canary",
      reason: "canary",
      password: "user-pw",
    });
    const encryptRef = /\/Encrypt (\d+) 0 R/.exec(input.toString("latin1"))![1];
    const update = async (prepare: boolean) => {
      const pdf = await PDF.load(input, { credentials: "user-pw" });
      if (prepare) prepareEncryptedUpdate(pdf);
      for (const field of pdf.getForm()!.getFields()) signatureDictOf(field); // read the signature dictionary
      pdf.getCatalog().set("Lang", PdfString.fromString("en"));
      const saved = Buffer.from(await pdf.save({ incremental: true }));
      return { saved, written: saved.subarray(input.length).toString("latin1") };
    };
    const raw = await update(false);
    expect(raw.written).toContain("/Type /Sig");
    expect(raw.written).not.toContain(`/Encrypt ${encryptRef} 0 R`);
    const prepared = await update(true);
    // The catalog and the cross-reference stream, nothing else; the trailer names the file's /Encrypt.
    expect(prepared.written.match(/\d+ 0 obj/g)).toHaveLength(2);
    expect(prepared.written).not.toContain("/Type /Sig");
    expect(prepared.written).toContain(`/Encrypt ${encryptRef} 0 R`);
    expect((openPdfFile(prepared.saved, { password: "user-pw" }).latest.catalog.get("Lang") as PdfString).asString()).toBe("en");
  });

  it("names each member that is missing, so an upgrade fails with a reason", async () => {
    const pdf = await PDF.load(signed);
    delete (pdf.context as unknown as { pages?: unknown }).pages;
    delete (pdf as unknown as { _isLinearized?: unknown })._isLinearized;
    expect(() => checkLibpdfInternals(pdf)).toThrow(/context\.pages .*PDF\._isLinearized.*libpdf-internals\.ts/);
  });
});
