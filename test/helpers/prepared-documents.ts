// Documents for the converter's own tests, past intake() on purpose.
import type { SourceFormat } from "#domain/documents/formats.ts";
import { PreparedDocument } from "#domain/documents/intake.ts";
import { ZipContainer } from "#domain/shared/zip-container.ts";

// Generous zip limits: the directory is read only so the converter finds it where intake leaves it.
const ZIP_LIMITS = { maxEntries: 100_000, maxUncompressedBytes: Number.MAX_SAFE_INTEGER };

/**
 * unchecked plays a caller that skipped intake(): a PreparedDocument made without the checks (its
 * constructor refuses; this builds one from the prototype). Only for tests of the converter itself
 * (crash handling, time-outs, sandbox), which must reach LibreOffice with what intake would refuse.
 */
export function unchecked(bytes: Uint8Array, from: SourceFormat): PreparedDocument {
  let container: PreparedDocument["container"] = { kind: "text" };
  try {
    if (bytes[0] === 0x50 && bytes[1] === 0x4b) container = { kind: "zip", zip: ZipContainer.open(bytes, ZIP_LIMITS) };
  } catch {
    // Not a readable zip: the converter gets the bytes alone.
  }
  return Object.assign(Object.create(PreparedDocument.prototype) as PreparedDocument, { format: from, bytes, container, removed: [] });
}
