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

/** fieldName is the field type of an instruction (its first word, upper case; "=" for a formula). */
export function fieldName(instruction: string): string {
  const trimmed = instruction.trim();
  if (trimmed.startsWith("=")) return "=";
  return (/^[^\s"\\]*/.exec(trimmed)?.[0] ?? "").toUpperCase();
}

/** isSafeField tells whether a field instruction only works inside the document (see SAFE_FIELDS). */
export function isSafeField(instruction: string): boolean {
  const name = fieldName(instruction);
  return name === "=" || name === "" || SAFE_FIELDS.has(name);
}
