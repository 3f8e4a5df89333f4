import { PDF, type EmbeddedFont, type PdfRef } from "@libpdf/core";

/** FontFiles are the TrueType programs the certificate page draws with. */
export interface FontFiles {
  regular: Uint8Array;
  bold: Uint8Array;
  mono: Uint8Array;
  /** Fallback for Chinese, Japanese and Korean. */
  cjk: Uint8Array;
}

/** FontStyle picks one of the primary fonts. */
export type FontStyle = "regular" | "bold" | "mono";

type FontProgram = EmbeddedFont["program"];
type EmbeddedFontClass = new (program: FontProgram, data: Uint8Array) => EmbeddedFont;

interface ParsedFont {
  program: FontProgram;
  data: Uint8Array;
  construct: EmbeddedFontClass;
}

// Parsing a TrueType program (cmap, hmtx, post) costs 5-20 ms per font; the programs are
// immutable, so each is parsed once per container and shared by every document.
const parsed = new WeakMap<Uint8Array, ParsedFont>();

function parse(data: Uint8Array): ParsedFont {
  let font = parsed.get(data);
  if (!font) {
    const probe = PDF.create().embedFont(data);
    font = { program: probe.program, data, construct: probe.constructor as EmbeddedFontClass };
    parsed.set(data, font);
  }
  return font;
}

/**
 * embedParsed attaches a font to a document reusing the container's parsed program. It does what
 * libpdf's PDFFonts.embed does after parsing (allocate the ref, register for finalisation), which
 * libpdf 0.4 exposes no public way to do with an already parsed program.
 */
function embedParsed(pdf: PDF, font: ParsedFont): EmbeddedFont {
  const embedded = new font.construct(font.program, font.data);
  const fonts = pdf.fonts as unknown as { embeddedFonts: Map<EmbeddedFont, PdfRef> };
  const ref = (pdf.context as unknown as { registry: { allocateRef(): PdfRef } }).registry.allocateRef();
  fonts.embeddedFonts.set(embedded, ref);
  embedded.setRef(ref);
  return embedded;
}

/** TextRun is a piece of text drawn with one font. */
export interface TextRun {
  text: string;
  font: EmbeddedFont;
  width: number;
}

/**
 * DocumentFonts hands out the fonts of one document: the primary styles on first use and the CJK
 * fallback only when a character needs it, so a Latin-only page embeds no CJK glyph data.
 */
export class DocumentFonts {
  private readonly embedded = new Map<string, EmbeddedFont>();

  constructor(
    private readonly pdf: PDF,
    private readonly files: FontFiles,
  ) {}

  private get(name: keyof FontFiles): EmbeddedFont {
    let font = this.embedded.get(name);
    if (!font) {
      font = embedParsed(this.pdf, parse(this.files[name]));
      this.embedded.set(name, font);
    }
    return font;
  }

  /** runs splits text (already in visual order) into runs by the font that has each character. */
  runs(text: string, style: FontStyle, size: number): TextRun[] {
    const primary = parse(this.files[style]).program;
    const fallback = parse(this.files.cjk).program;
    const runs: Array<{ text: string; name: keyof FontFiles }> = [];
    for (const char of text) {
      const code = char.codePointAt(0)!;
      const name: keyof FontFiles = primary.hasGlyph(code) || !fallback.hasGlyph(code) ? style : "cjk";
      const last = runs.at(-1);
      if (last && last.name === name) last.text += char;
      else runs.push({ text: char, name });
    }
    return runs.map((run) => {
      const font = this.get(run.name);
      return { text: run.text, font, width: font.widthOfTextAtSize(run.text, size) };
    });
  }

  /** width measures text as runs() would draw it. */
  width(text: string, style: FontStyle, size: number): number {
    return this.runs(text, style, size).reduce((sum, run) => sum + run.width, 0);
  }
}

/**
 * wrapText breaks a paragraph into lines no wider than maxWidth: at spaces when it can, inside a
 * word when the word alone is too wide (user agents, digests, CJK text without spaces).
 */
export function wrapText(text: string, maxWidth: number, measure: (text: string) => number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let line = "";
    for (const word of paragraph.split(/(?<=\s)/)) {
      if (measure(line + word.trimEnd()) <= maxWidth) {
        line += word;
        continue;
      }
      if (line.trim()) lines.push(line.trimEnd());
      line = "";
      if (measure(word.trimEnd()) <= maxWidth) {
        line = word;
        continue;
      }
      for (const char of word) {
        if (line && measure(line + char) > maxWidth) {
          lines.push(line);
          line = "";
        }
        line += char;
      }
    }
    lines.push(line.trimEnd());
  }
  return lines;
}

// Arabic letters' presentation forms (isolated, final, initial, medial); two forms: joins right only.
const ARABIC_FORMS: Record<number, number[]> = {
  0x0621: [0xfe80], 0x0622: [0xfe81, 0xfe82], 0x0623: [0xfe83, 0xfe84], 0x0624: [0xfe85, 0xfe86], 0x0625: [0xfe87, 0xfe88],
  0x0626: [0xfe89, 0xfe8a, 0xfe8b, 0xfe8c], 0x0627: [0xfe8d, 0xfe8e], 0x0628: [0xfe8f, 0xfe90, 0xfe91, 0xfe92],
  0x0629: [0xfe93, 0xfe94], 0x062a: [0xfe95, 0xfe96, 0xfe97, 0xfe98], 0x062b: [0xfe99, 0xfe9a, 0xfe9b, 0xfe9c],
  0x062c: [0xfe9d, 0xfe9e, 0xfe9f, 0xfea0], 0x062d: [0xfea1, 0xfea2, 0xfea3, 0xfea4], 0x062e: [0xfea5, 0xfea6, 0xfea7, 0xfea8],
  0x062f: [0xfea9, 0xfeaa], 0x0630: [0xfeab, 0xfeac], 0x0631: [0xfead, 0xfeae], 0x0632: [0xfeaf, 0xfeb0],
  0x0633: [0xfeb1, 0xfeb2, 0xfeb3, 0xfeb4], 0x0634: [0xfeb5, 0xfeb6, 0xfeb7, 0xfeb8], 0x0635: [0xfeb9, 0xfeba, 0xfebb, 0xfebc],
  0x0636: [0xfebd, 0xfebe, 0xfebf, 0xfec0], 0x0637: [0xfec1, 0xfec2, 0xfec3, 0xfec4], 0x0638: [0xfec5, 0xfec6, 0xfec7, 0xfec8],
  0x0639: [0xfec9, 0xfeca, 0xfecb, 0xfecc], 0x063a: [0xfecd, 0xfece, 0xfecf, 0xfed0], 0x0641: [0xfed1, 0xfed2, 0xfed3, 0xfed4],
  0x0642: [0xfed5, 0xfed6, 0xfed7, 0xfed8], 0x0643: [0xfed9, 0xfeda, 0xfedb, 0xfedc], 0x0644: [0xfedd, 0xfede, 0xfedf, 0xfee0],
  0x0645: [0xfee1, 0xfee2, 0xfee3, 0xfee4], 0x0646: [0xfee5, 0xfee6, 0xfee7, 0xfee8], 0x0647: [0xfee9, 0xfeea, 0xfeeb, 0xfeec],
  0x0648: [0xfeed, 0xfeee], 0x0649: [0xfeef, 0xfef0], 0x064a: [0xfef1, 0xfef2, 0xfef3, 0xfef4],
};
// Lam followed by an alef variant becomes one ligature (isolated, final).
const LAM_ALEF: Record<number, number[]> = { 0x0622: [0xfef5, 0xfef6], 0x0623: [0xfef7, 0xfef8], 0x0625: [0xfef9, 0xfefa], 0x0627: [0xfefb, 0xfefc] };

const isRtl = (code: number) => (code >= 0x0590 && code <= 0x08ff) || (code >= 0xfb1d && code <= 0xfefc);
const joinsLeft = (code: number | undefined) => code !== undefined && (ARABIC_FORMS[code]?.length ?? 0) === 4;
const joins = (code: number | undefined) => code !== undefined && ARABIC_FORMS[code] !== undefined && code !== 0x0621;

function shapeArabic(codes: number[]): number[] {
  const out: number[] = [];
  for (let index = 0; index < codes.length; index++) {
    const code = codes[index]!;
    const forms = ARABIC_FORMS[code];
    if (!forms) {
      out.push(code);
      continue;
    }
    const previous = codes[index - 1];
    const joinedBefore = joinsLeft(previous);
    const next = codes[index + 1];
    if (code === 0x0644 && next !== undefined && LAM_ALEF[next]) {
      out.push(LAM_ALEF[next]![joinedBefore ? 1 : 0]!);
      index++;
      continue;
    }
    const joinedAfter = forms.length === 4 && joins(next);
    const form = joinedBefore ? (joinedAfter ? 3 : 1) : joinedAfter ? 2 : 0;
    out.push(forms[Math.min(form, forms.length - 1)] ?? forms[0]!);
  }
  return out;
}

/**
 * visualOrder prepares text for a left-to-right drawing: Arabic letters take their contextual
 * presentation forms and each right-to-left run is reversed. It is not the full Unicode bidi
 * algorithm, but it renders names and short phrases in Arabic and Hebrew correctly inside a
 * left-to-right page.
 */
export function visualOrder(text: string): string {
  const codes = Array.from(text, (char) => char.codePointAt(0)!);
  if (!codes.some(isRtl)) return text;
  const out: number[] = [];
  let index = 0;
  while (index < codes.length) {
    if (!isRtl(codes[index]!)) {
      out.push(codes[index]!);
      index++;
      continue;
    }
    // An RTL run continues over spaces and marks that are followed by more RTL letters.
    let end = index;
    while (end < codes.length && (isRtl(codes[end]!) || (codes[end] === 0x20 && end + 1 < codes.length && isRtl(codes[end + 1]!)))) end++;
    out.push(...shapeArabic(codes.slice(index, end)).reverse());
    index = end;
  }
  return String.fromCodePoint(...out);
}
