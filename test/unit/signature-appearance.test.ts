// The visible signature's layout (signature-appearance.ts) and the certification's DocMDP
// dictionaries (certification.ts): pure functions, checked without signing.
import { PDF, type PdfArray, PdfDict, PdfName, type PdfNumber, PdfRef, PdfStream } from "@libpdf/core";
import { describe, expect, it } from "vitest";
import { declareCertification, docMdpReference } from "#domain/signing/certification.ts";
import { appearanceLines, drawSignatureAppearance, layoutAppearance, uprightMatrix, type AppearanceContent } from "#domain/signing/signature-appearance.ts";
import { testFonts } from "#test/helpers/test-fonts.ts";

// A measure of 0.5 em per character, like an average sans-serif.
const measure = (text: string) => [...text].length * 0.5;
const content: AppearanceContent = { name: "Ada Lovelace", date: "2026-11-27 10:00:00 UTC", reason: "Approved", location: "London" };

describe("layoutAppearance", () => {
  it("puts the name first and largest, then the date, reason and location, all inside the box", () => {
    const box = { width: 240, height: 60 };
    const { lines, image } = layoutAppearance(box, content, measure);
    expect(image).toBeUndefined();
    expect(lines.map((line) => line.text)).toEqual(["Ada Lovelace", "Digitally signed 2026-11-27 10:00:00 UTC", "Reason: Approved", "Location: London"]);
    expect(lines[0]!.size).toBeGreaterThan(lines[1]!.size);
    for (const [index, line] of lines.entries()) {
      expect(line.x + measure(line.text) * line.size, line.text).toBeLessThanOrEqual(box.width + 1e-6);
      expect(line.y, line.text).toBeGreaterThan(0);
      expect(line.y + line.size, line.text).toBeLessThanOrEqual(box.height);
      if (index > 0) expect(line.y, "each line below the one before").toBeLessThan(lines[index - 1]!.y);
    }
  });

  it("shrinks the text for a narrow box (the widest line decides) and caps the name in a large one", () => {
    const narrow = layoutAppearance({ width: 80, height: 60 }, content, measure);
    const wide = layoutAppearance({ width: 400, height: 60 }, content, measure);
    expect(narrow.lines[0]!.size).toBeLessThan(wide.lines[0]!.size);
    const huge = layoutAppearance({ width: 2000, height: 2000 }, { name: "A", date: "d" }, measure);
    expect(huge.lines[0]!.size).toBe(18);
    expect(appearanceLines({ name: "A", date: "d" })).toHaveLength(2);
  });

  it("puts the picture on the left at most 40% wide, aspect kept, and the text to its right", () => {
    const box = { width: 300, height: 60 };
    const layout = layoutAppearance(box, { ...content, image: { bytes: new Uint8Array(), width: 400, height: 200 } }, measure);
    const image = layout.image!;
    expect(image.width / image.height).toBeCloseTo(2, 5);
    expect(image.width).toBeLessThanOrEqual(box.width * 0.4);
    expect(image.y).toBeGreaterThanOrEqual(0);
    expect(image.y + image.height).toBeLessThanOrEqual(box.height);
    for (const line of layout.lines) expect(line.x).toBeGreaterThanOrEqual(image.x + image.width);
  });

  it("ends a right-to-left name at the right edge", () => {
    const { lines } = layoutAppearance({ width: 200, height: 50 }, { name: "ليلى أحمد", date: "d" }, measure);
    expect(lines[0]).toMatchObject({ direction: "rtl" });
    expect(lines[0]!.x).toBeGreaterThan(190);
    expect(lines[1]).toMatchObject({ direction: "ltr" });
  });
});

describe("drawSignatureAppearance", () => {
  it("makes a form XObject of the widget's size naming the fonts and glyph forms it uses in its own /Resources", () => {
    const pdf = PDF.create();
    const ref = drawSignatureAppearance(pdf, testFonts(), { width: 200, height: 50, rotate: 0 }, { ...content, name: "Ada 山田 ليلى अनुबंध" });
    const stream = pdf.getObject(ref) as PdfStream;
    expect(stream).toBeInstanceOf(PdfStream);
    expect(stream.getName("Subtype")?.value).toBe("Form");
    expect((stream.get("BBox") as PdfArray).toArray().map((value) => (value as PdfNumber).value)).toEqual([0, 0, 200, 50]);
    const resources = stream.get("Resources") as PdfDict;
    const fonts = resources.get("Font") as PdfDict;
    // DejaVu Sans Bold for the Latin and Arabic name, the CJK and Devanagari fallbacks, DejaVu Sans for the details.
    expect([...fonts.keys()].length).toBeGreaterThanOrEqual(3);
    for (const [, value] of fonts) expect(value).toBeInstanceOf(PdfRef);
    expect(resources.get("XObject"), "Devanagari is shaped: its glyphs are form XObjects").toBeInstanceOf(PdfDict);
  });
});

describe("uprightMatrix (a widget on a rotated page)", () => {
  // How a page shown turned clockwise by `rotate` moves a user-space direction on the screen (x right, y up).
  const onScreen = (rotate: number, [x, y]: [number, number]): [number, number] =>
    (rotate === 90 ? [y, -x] : rotate === 180 ? [-x, -y] : rotate === 270 ? [-y, x] : [x, y]).map((value) => value + 0) as [number, number];
  it.each([0, 90, 180, 270] as const)("rotate %i: the drawn box fills the widget, and text runs left to right, upright, on the screen", (rotate) => {
    const widget = { width: 200, height: 50, rotate };
    const [a, b, c, d, e, f] = uprightMatrix(widget);
    const turned = rotate === 90 || rotate === 270;
    const [w, h] = turned ? [50, 200] : [200, 50];
    const corners = [
      [0, 0],
      [w, 0],
      [0, h],
      [w, h],
    ].map(([u, v]) => [a * u! + c * v! + e, b * u! + d * v! + f]);
    expect(Math.min(...corners.map(([x]) => x!))).toBeCloseTo(0);
    expect(Math.max(...corners.map(([x]) => x!))).toBeCloseTo(200);
    expect(Math.min(...corners.map(([, y]) => y!))).toBeCloseTo(0);
    expect(Math.max(...corners.map(([, y]) => y!))).toBeCloseTo(50);
    expect(onScreen(rotate, [a, b])).toEqual([1, 0]); // the text direction: screen right
    expect(onScreen(rotate, [c, d])).toEqual([0, 1]); // the line's up: screen up
  });
});

describe("certification dictionaries", () => {
  it.each([1, 2, 3] as const)("P=%i: one DocMDP signature reference with /P and /V /1.2", (p) => {
    const reference = docMdpReference(p).at(0) as PdfDict;
    expect(reference.getName("Type")?.value).toBe("SigRef");
    expect(reference.getName("TransformMethod")?.value).toBe("DocMDP");
    const params = reference.get("TransformParams") as PdfDict;
    expect(params.getName("Type")?.value).toBe("TransformParams");
    expect(params.getNumber("P")?.value).toBe(p);
    expect(params.getName("V")?.value).toBe("1.2");
  });

  it("names the signature in /Perms /DocMDP, keeping an existing /Perms entry (usage rights)", () => {
    const pdf = PDF.create();
    const signature = pdf.register(PdfDict.of({ Type: PdfName.of("Sig") }));
    const usageRights = pdf.register(PdfDict.of({ Type: PdfName.of("Sig") }));
    pdf.getCatalog().set("Perms", PdfDict.of({ UR3: usageRights }));
    declareCertification(pdf, signature);
    const perms = pdf.getCatalog().get("Perms") as PdfDict;
    expect(perms.get("DocMDP")).toBe(signature);
    expect(perms.get("UR3")).toBe(usageRights);
  });
});
