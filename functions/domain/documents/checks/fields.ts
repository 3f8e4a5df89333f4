/**
 * Word field instructions that only compute or show something from inside the document. Every
 * other field (INCLUDEPICTURE, INCLUDETEXT, INCLUDE, IMPORT, LINK, DDE, DDEAUTO, DATABASE, RD and
 * whatever a reader may add) can load content from a path or URL, so it is neutralised: its
 * instruction goes and its last result, stored in the document, stays as plain content.
 */
const SAFE_FIELDS = new Set([
  "ADDRESSBLOCK",
  "ADVANCE",
  "ASK",
  "AUTHOR",
  "AUTONUM",
  "AUTONUMLGL",
  "AUTONUMOUT",
  "BARCODE",
  "BIBLIOGRAPHY",
  "BIDIOUTLINE",
  "CITATION",
  "COMMENTS",
  "COMPARE",
  "CREATEDATE",
  "DATE",
  "DISPLAYBARCODE",
  "DOCPROPERTY",
  "DOCVARIABLE",
  "EDITTIME",
  "EMBED",
  "EQ",
  "FILENAME",
  "FILESIZE",
  "FILLIN",
  "FORMCHECKBOX",
  "FORMDROPDOWN",
  "FORMTEXT",
  "GOTOBUTTON",
  "GREETINGLINE",
  "HYPERLINK",
  "IF",
  "INDEX",
  "INFO",
  "KEYWORDS",
  "LASTSAVEDBY",
  "LISTNUM",
  "MACROBUTTON",
  "MERGEFIELD",
  "MERGEREC",
  "MERGESEQ",
  "NEXT",
  "NEXTIF",
  "NOTEREF",
  "NUMCHARS",
  "NUMPAGES",
  "NUMWORDS",
  "PAGE",
  "PAGEREF",
  "PRINTDATE",
  "QUOTE",
  "REF",
  "REVNUM",
  "SAVEDATE",
  "SECTION",
  "SECTIONPAGES",
  "SEQ",
  "SET",
  "SHAPE",
  "SKIPIF",
  "STYLEREF",
  "SUBJECT",
  "SYMBOL",
  "TA",
  "TC",
  "TEMPLATE",
  "TIME",
  "TITLE",
  "TOA",
  "TOC",
  "USERADDRESS",
  "USERINITIALS",
  "USERNAME",
  "XE",
]);

/**
 * LINKING_WORDS are the field types that load content from a path or URL. A reader dispatches on the
 * instruction's first token, but where that token is (after "=", a switch such as "\*", quotes or
 * a backslash) differs between readers and versions: an instruction naming one anywhere, in any
 * case, is treated as that field.
 */
const LINKING_WORDS = new Set(["INCLUDEPICTURE", "INCLUDETEXT", "INCLUDE", "IMPORT", "LINK", "DDE", "DDEAUTO", "DATABASE", "RD", "SUBSCRIBER"]);

/** fieldName is the field type of an instruction (its first word, upper case; "=" for a formula). */
export function fieldName(instruction: string): string {
  const trimmed = instruction.trim();
  if (trimmed.startsWith("=")) return "=";
  return (/^[^\s"\\]*/.exec(trimmed)?.[0] ?? "").toUpperCase();
}

/** fieldWords are the words of an instruction once quotes, backslashes and punctuation are set aside, upper case. */
function fieldWords(instruction: string): string[] {
  return instruction.toUpperCase().match(/[A-Z]+/g) ?? [];
}

/**
 * isSafeField tells whether a field instruction only works inside the document: its type is one of
 * SAFE_FIELDS (or a formula, or none), no word of it names a linking field type, and a HYPERLINK
 * points at no file (file: or a path with doubled backslashes, as Word writes paths in fields).
 */
export function isSafeField(instruction: string): boolean {
  const words = fieldWords(instruction);
  if (words.some((word) => LINKING_WORDS.has(word))) return false;
  if (words.includes("HYPERLINK") && /file:|\\\\/i.test(instruction)) return false;
  const name = fieldName(instruction);
  return name === "=" || name === "" || SAFE_FIELDS.has(name);
}
