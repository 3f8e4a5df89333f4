// Arabic contextual forms (isolated, final, initial, medial) and lam-alef ligatures, chosen without
// a shaper so the glyphs come from the subset font and extract as their base letters.

// Arabic letters' presentation forms (isolated, final, initial, medial); two forms: joins right only.
const ARABIC_FORMS: Record<number, number[]> = {
  0x0621: [0xfe80],
  0x0622: [0xfe81, 0xfe82],
  0x0623: [0xfe83, 0xfe84],
  0x0624: [0xfe85, 0xfe86],
  0x0625: [0xfe87, 0xfe88],
  0x0626: [0xfe89, 0xfe8a, 0xfe8b, 0xfe8c],
  0x0627: [0xfe8d, 0xfe8e],
  0x0628: [0xfe8f, 0xfe90, 0xfe91, 0xfe92],
  0x0629: [0xfe93, 0xfe94],
  0x062a: [0xfe95, 0xfe96, 0xfe97, 0xfe98],
  0x062b: [0xfe99, 0xfe9a, 0xfe9b, 0xfe9c],
  0x062c: [0xfe9d, 0xfe9e, 0xfe9f, 0xfea0],
  0x062d: [0xfea1, 0xfea2, 0xfea3, 0xfea4],
  0x062e: [0xfea5, 0xfea6, 0xfea7, 0xfea8],
  0x062f: [0xfea9, 0xfeaa],
  0x0630: [0xfeab, 0xfeac],
  0x0631: [0xfead, 0xfeae],
  0x0632: [0xfeaf, 0xfeb0],
  0x0633: [0xfeb1, 0xfeb2, 0xfeb3, 0xfeb4],
  0x0634: [0xfeb5, 0xfeb6, 0xfeb7, 0xfeb8],
  0x0635: [0xfeb9, 0xfeba, 0xfebb, 0xfebc],
  0x0636: [0xfebd, 0xfebe, 0xfebf, 0xfec0],
  0x0637: [0xfec1, 0xfec2, 0xfec3, 0xfec4],
  0x0638: [0xfec5, 0xfec6, 0xfec7, 0xfec8],
  0x0639: [0xfec9, 0xfeca, 0xfecb, 0xfecc],
  0x063a: [0xfecd, 0xfece, 0xfecf, 0xfed0],
  0x0641: [0xfed1, 0xfed2, 0xfed3, 0xfed4],
  0x0642: [0xfed5, 0xfed6, 0xfed7, 0xfed8],
  0x0643: [0xfed9, 0xfeda, 0xfedb, 0xfedc],
  0x0644: [0xfedd, 0xfede, 0xfedf, 0xfee0],
  0x0645: [0xfee1, 0xfee2, 0xfee3, 0xfee4],
  0x0646: [0xfee5, 0xfee6, 0xfee7, 0xfee8],
  0x0647: [0xfee9, 0xfeea, 0xfeeb, 0xfeec],
  0x0648: [0xfeed, 0xfeee],
  0x0649: [0xfeef, 0xfef0],
  0x064a: [0xfef1, 0xfef2, 0xfef3, 0xfef4],
};
// Lam followed by an alef variant becomes one ligature (isolated, final).
const LAM_ALEF: Record<number, number[]> = { 0x0622: [0xfef5, 0xfef6], 0x0623: [0xfef7, 0xfef8], 0x0625: [0xfef9, 0xfefa], 0x0627: [0xfefb, 0xfefc] };

const joinsLeft = (code: number | undefined) => code !== undefined && (ARABIC_FORMS[code]?.length ?? 0) === 4;
const joins = (code: number | undefined) => code !== undefined && ARABIC_FORMS[code] !== undefined && code !== 0x0621;
// Arabic marks (harakat, superscript alef, Quranic marks) are transparent to joining.
const isArabicMark = (code: number) => (code >= 0x064b && code <= 0x065f) || code === 0x0670 || (code >= 0x06d6 && code <= 0x06ed);

/**
 * shapeArabic gives each UTF-16 unit of a logical string what to draw for it: Arabic letters their
 * contextual presentation form (joining looks past marks), lam + alef one ligature (the alef's
 * unit then draws nothing), everything else itself. Same length as the text, so bidi indices hold.
 */
export function shapeArabic(text: string): string[] {
  const units = text.split("");
  const neighbour = (from: number, step: 1 | -1): number | undefined => {
    for (let i = from + step; i >= 0 && i < text.length; i += step) {
      const code = text.charCodeAt(i);
      if (!isArabicMark(code)) return i;
    }
    return undefined;
  };
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const forms = ARABIC_FORMS[code];
    if (!forms) continue;
    const before = neighbour(index, -1);
    const joinedBefore = before !== undefined && joinsLeft(text.charCodeAt(before)) && units[before] !== "";
    const after = neighbour(index, 1);
    const next = after === undefined ? undefined : text.charCodeAt(after);
    if (code === 0x0644 && next !== undefined && LAM_ALEF[next]) {
      units[index] = String.fromCharCode(LAM_ALEF[next]![joinedBefore ? 1 : 0]!);
      units[after!] = "";
      index = after!;
      continue;
    }
    const joinedAfter = forms.length === 4 && joins(next);
    const form = joinedBefore ? (joinedAfter ? 3 : 1) : joinedAfter ? 2 : 0;
    units[index] = String.fromCharCode(forms[Math.min(form, forms.length - 1)] ?? forms[0]!);
  }
  return units;
}
