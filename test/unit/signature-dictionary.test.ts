import { describe, expect, it } from "vitest";
import { PdfArray, PdfDict, PdfName, PdfNumber, PdfRef, PdfString } from "@libpdf/core";
import { SignatureLocator } from "#domain/verification/signature-dictionary.ts";

// The tokenizer that finds a signature dictionary's own /Contents: decoys in strings,
// comments and nested dictionaries are not "the first match", and what readers resolve must be
// the signed dictionary itself.

const DER = "3003020101";

/** file lays out `before` + the object text + `after`, the object's /Contents value marked by GAP. */
function file(object: string): { bytes: Buffer; gap: [number, number] } {
  const text = `%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n${object}\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n`;
  const marker = text.indexOf("GAP");
  const filled = text.replace("GAP", `<${DER}0000>`);
  return { bytes: Buffer.from(filled, "latin1"), gap: [marker, marker + DER.length + 6] };
}

const ref = PdfRef.of(7, 0);
const contents = new PdfString(Buffer.from(`${DER}0000`, "hex"), "hex");
const range = new PdfArray([0, 10, 20, 30].map((value) => PdfNumber.of(value)));
const dict = (extra: Record<string, PdfString | PdfDict> = {}) => PdfDict.of({ Type: PdfName.of("Sig"), ...extra, Contents: contents, ByteRange: range });

describe("SignatureLocator", () => {
  it("finds the real /Contents after a decoy inside a string, and returns the DER with its padding", () => {
    const { bytes, gap } = file("7 0 obj\n<< /Type /Sig /Name (/Contents <00> \\) 7 0 obj) /Contents GAP /ByteRange [0 10 20 30] >>\nendobj");
    const located = new SignatureLocator(bytes, 1).locate(ref, dict({ Name: PdfString.fromString("/Contents <00> ) 7 0 obj") }), gap, bytes.length);
    expect(located.der.toString("hex")).toBe(`${DER}0000`);
    expect(bytes.toString("latin1", located.start, located.start + 7)).toBe("7 0 obj");
  });

  const refused: Record<string, [string, Record<string, PdfString | PdfDict>, RegExp]> = {
    "a gap on a /Contents nested in another dictionary": [
      "7 0 obj\n<< /Type /Sig /Prop << /Contents GAP >> /Contents <00> /ByteRange [0 10 20 30] >>\nendobj",
      { Prop: PdfDict.of({ Contents: contents }) },
      /gap is not exactly this signature dictionary's \/Contents/,
    ],
    "a gap on a /Contents in a comment": [
      "7 0 obj\n<< /Type /Sig % /Contents GAP\n /Contents <00> /ByteRange [0 10 20 30] >>\nendobj",
      {},
      /gap is not exactly|cannot be read/,
    ],
    "/Contents twice": ["7 0 obj\n<< /Type /Sig /Contents <00> /Contents GAP /ByteRange [0 10 20 30] >>\nendobj", {}, /holds \/Contents twice/],
    "a dictionary readers resolve differently (redefined after signing)": [
      "7 0 obj\n<< /Type /Sig /Name (Ada) /Contents GAP /ByteRange [0 10 20 30] >>\nendobj",
      { Name: PdfString.fromString("Mallory") },
      /differs from the signed one/,
    ],
    "another object's dictionary": [
      "8 0 obj\n<< /Type /Sig /Contents GAP /ByteRange [0 10 20 30] >>\nendobj",
      {},
      /object 7 0\) is not inside the bytes its \/ByteRange covers/,
    ],
    "a dictionary ending after the signed bytes": [
      "7 0 obj\n<< /Type /Sig /Contents GAP /ByteRange [0 10 20 30] >>\nendobj",
      {},
      /cannot be read|does not end/,
    ],
  };

  it.each(Object.keys(refused))("refuses %s", (name) => {
    const [object, extra, reason] = refused[name]!;
    const { bytes, gap } = file(object);
    const signedEnd = name.includes("after the signed bytes") ? gap[1] + 10 : bytes.length;
    expect(() => new SignatureLocator(bytes, 1).locate(ref, dict(extra), gap, signedEnd)).toThrow(reason);
  });

  it("reads at most about twice the file for all signatures: later ones are refused once a hostile layout used the budget", () => {
    // Each dictionary's tail opens a string that runs to the end of the file: read alone, every
    // signature would cost the rest of the file (quadratic over 50 signatures).
    const parts: string[] = ["%PDF-1.7\n"];
    const gaps: Array<[number, number]> = [];
    let length = parts[0]!.length;
    for (let index = 1; index <= 50; index++) {
      const head = `${index} 0 obj\n<< /Contents `;
      gaps.push([length + head.length, length + head.length + 6]);
      const text = `${head}<3000> /X (${"a".repeat(40_000)}\n`;
      parts.push(text);
      length += text.length;
    }
    const bytes = Buffer.from(parts.join(""), "latin1");
    const locator = new SignatureLocator(bytes, 50);
    const problems = gaps.map((gap, index) => {
      try {
        locator.locate(PdfRef.of(index + 1, 0), PdfDict.of({}), gap, bytes.length);
        return "located";
      } catch (error) {
        return (error as Error).message;
      }
    });
    expect(problems[0]).toMatch(/cannot be read \(an unterminated string/);
    expect(problems.at(-1)).toMatch(/takes more work than the file's size allows/);
  });
});
