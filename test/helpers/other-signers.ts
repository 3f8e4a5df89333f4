// Signatures made by other PAdES implementations (pyHanko, @signpdf), with the shared test PKI's
// "other-signer" certificate, for the tests that sign or verify next to them.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PDFDocument } from "pdf-lib";
import { testPki } from "#test/helpers/pki/test-pki.ts";
import { runPyhanko } from "#test/helpers/pyhanko.ts";
import { scratchDir } from "#test/helpers/scratch.ts";

/** signWithSignpdf signs a PDF with another library (@signpdf, adbe.pkcs7.detached, the test PKI's "other-signer" P12 in the legacy SHA-1/3DES algorithms node-forge reads). */
export async function signWithSignpdf(pdf: Buffer): Promise<Buffer> {
  const { pdflibAddPlaceholder } = await import("@signpdf/placeholder-pdf-lib");
  const { P12Signer } = await import("@signpdf/signer-p12");
  const { SignPdf } = await import("@signpdf/signpdf");
  const p12 = testPki().p12("other-signer");
  const doc = await PDFDocument.load(pdf);
  pdflibAddPlaceholder({ pdfDoc: doc, reason: "other tool", contactInfo: "other@example.com", name: "Other Tool Signer", location: "Test" });
  const withPlaceholder = Buffer.from(await doc.save({ useObjectStreams: false }));
  return Buffer.from(await new SignPdf().sign(withPlaceholder, new P12Signer(p12)));
}

/**
 * signWithPyhanko signs a PDF with pyHanko (another PAdES implementation): a PAdES approval
 * signature, adbe.pkcs7.detached with `pkcs7`, or a certification signature with DocMDP P; with
 * `ignoreDocMdp` also on a document certified against all changes (a careless signer).
 */
export function signWithPyhanko(pdf: Buffer, options: { certify?: 1 | 2 | 3; pkcs7?: boolean; field?: string; ignoreDocMdp?: boolean } = {}): Buffer {
  const pki = testPki();
  const dir = scratchDir("pyhanko-sign");
  const input = join(dir, "in.pdf");
  const output = join(dir, "out.pdf");
  writeFileSync(input, pdf);
  const args = [input, output, pki.keyPath("other-signer"), pki.certificatePath("other-signer")];
  if (options.certify) args.push("--certify", String(options.certify));
  if (options.pkcs7) args.push("--pkcs7");
  if (options.field) args.push("--field", options.field);
  if (options.ignoreDocMdp) args.push("--ignore-docmdp");
  const run = runPyhanko("pyhanko-sign.py", args);
  if (run.status !== 0) throw new Error(`pyHanko sign failed: ${run.stderr}`);
  return readFileSync(output);
}
