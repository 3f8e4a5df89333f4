import { PdfArray, PdfBool, PdfDict, PdfName, PdfNull, PdfNumber, PdfRef, PdfStream, PdfString, type PdfObject } from "@libpdf/core";

// Structural comparison of PDF objects, shared by the modification analysis (a value in the
// signed revision against the latest one) and the signature-dictionary check (the signed
// dictionary against what libpdf resolved).

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/** same compares two values structurally; references are compared as references (number and generation), not followed. */
export function same(a: PdfObject | undefined, b: PdfObject | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  if (a instanceof PdfRef || b instanceof PdfRef)
    return a instanceof PdfRef && b instanceof PdfRef && a.objectNumber === b.objectNumber && a.generation === b.generation;
  if (a instanceof PdfNumber || a instanceof PdfBool || a instanceof PdfName)
    return a.constructor === b.constructor && (a as PdfNumber).value === (b as PdfNumber).value;
  if (a instanceof PdfNull) return b instanceof PdfNull;
  if (a instanceof PdfString) return b instanceof PdfString && bytesEqual(a.bytes, b.bytes);
  if (a instanceof PdfArray) {
    return b instanceof PdfArray && a.length === b.length && a.toArray().every((item, index) => same(item, b.at(index)));
  }
  if (a instanceof PdfDict) {
    if (!(b instanceof PdfDict) || a instanceof PdfStream !== b instanceof PdfStream) return false;
    if (a instanceof PdfStream && !bytesEqual(a.data, (b as PdfStream).data)) return false;
    return sameEntries(a, b, new Set());
  }
  return false;
}

function keysOf(dict: PdfDict, ignored: Set<string>): string[] {
  return [...dict.keys()]
    .map((key) => key.value)
    .filter((key) => !ignored.has(key))
    .sort();
}

function sameEntries(a: PdfDict, b: PdfDict, ignored: Set<string>): boolean {
  const keys = keysOf(a, ignored);
  const other = keysOf(b, ignored);
  return keys.length === other.length && keys.every((key, index) => key === other[index] && same(a.get(key), b.get(key)));
}

/** differingKey names the first key (ignoring some) whose value differs, or undefined. */
export function differingKey(a: PdfDict, b: PdfDict, ignored: Set<string>): string | undefined {
  const keys = new Set([...keysOf(a, ignored), ...keysOf(b, ignored)]);
  for (const key of keys) if (!same(a.get(key), b.get(key))) return key;
  return undefined;
}
