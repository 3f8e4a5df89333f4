import { describe, expect, it } from "vitest";
import { PdfArray, PdfDict, PdfName, PdfNumber, PdfString } from "@libpdf/core";
import { type FieldLock, isLocked, readLock, strictestPermission } from "#domain/pdf/field-lock.ts";
import type { PdfView } from "#domain/pdf/pdf-file.ts";

// The lock reading every side shares (pdf/field-lock.ts): what a /Lock or FieldMDP /TransformParams
// dictionary locks, and which names a lock covers. Direct objects only: the view never resolves.
const view: PdfView = { index: 0, trailer: new PdfDict(), catalog: new PdfDict(), resolve: () => undefined };
const names = (...items: string[]) => new PdfArray(items.map((item) => PdfString.fromString(item)));

describe("readLock", () => {
  it.each([
    ["/All", PdfDict.of({ Action: PdfName.of("All") }), { action: "all", fields: [] }],
    ["/Include with /Fields", PdfDict.of({ Action: PdfName.of("Include"), Fields: names("a", "b.c") }), { action: "include", fields: ["a", "b.c"] }],
    [
      "/Exclude with /P 2",
      PdfDict.of({ Action: PdfName.of("Exclude"), Fields: names("a"), P: PdfNumber.of(2) }),
      { action: "exclude", fields: ["a"], permission: 2 },
    ],
    ["/Include without /Fields: at its strictest, all", PdfDict.of({ Action: PdfName.of("Include") }), { action: "all", fields: [] }],
    ["/P out of range: no permission", PdfDict.of({ Action: PdfName.of("All"), P: PdfNumber.of(7) }), { action: "all", fields: [] }],
    ["an unknown /Action: no lock", PdfDict.of({ Action: PdfName.of("Some") }), undefined],
    ["not a dictionary: no lock", PdfName.of("All"), undefined],
  ])("%s", (_, value, expected) => {
    expect(readLock(view, value)).toEqual(expected);
  });
});

describe("isLocked", () => {
  const include: FieldLock = { action: "include", fields: ["applicant", "date"] };
  const exclude: FieldLock = { action: "exclude", fields: ["applicant"] };
  it.each([
    [include, "applicant", true],
    [include, "applicant.name", true],
    [include, "applicants", false],
    [include, "date", true],
    [include, "other", false],
    [exclude, "applicant.name", false],
    [exclude, "applicants", true],
    [{ action: "all", fields: [] } as FieldLock, "anything", true],
  ])("%j covers %s: %s", (lock, name, expected) => {
    expect(isLocked(lock, name)).toBe(expected);
  });
});

describe("strictestPermission", () => {
  it.each([
    [undefined, undefined, undefined],
    [2, undefined, 2],
    [undefined, 1, 1],
    [3, 1, 1],
  ])("%s and %s: %s", (first, second, expected) => {
    expect(strictestPermission(first, second)).toBe(expected);
  });
});
