import { type PdfArray, PdfDict, type PdfName, type PdfNumber, type PdfRef, type PdfString } from "@libpdf/core";
import { describe, expect, it } from "vitest";
import { SignetError } from "#domain/shared/errors.ts";
import { PdfRevisions, readRevisions } from "#domain/pdf/revisions.ts";
import { PdfLexer, PdfSyntaxError } from "#domain/pdf/syntax.ts";
import { DEFAULT_VERIFY_LIMITS, VerifyBudget } from "#domain/pdf/verify-limits.ts";
import { appendUpdate, contractPdf, inspect, streamBody } from "#test/helpers/pdf-attacks/revisions.ts";

// The tokenizer verify reads revisions with, and the reader's strictness and bounds
// on hand-made files (the hostile suite runs the same attacks through the local server).

const parse = (text: string) => new PdfLexer(Buffer.from(text, "latin1")).value();

describe("PdfLexer", () => {
  it.each([
    ["a key inside a string is string content", "<< /Note (/Index [0 0]) /Index [4 1] >>", (d: PdfDict) => (d.get("Index") as PdfArray).length === 2],
    ["nested and escaped parentheses", "<< /S (a (b) \\) c) /K 1 >>", (d: PdfDict) => (d.get("S") as PdfString).asString() === "a (b) ) c"],
    ["octal and line escapes", "<< /S (\\101\\102\\\nC) >>", (d: PdfDict) => (d.get("S") as PdfString).asString() === "ABC"],
    ["a comment hides what follows on its line", "<< /A 1 % /Index [0 0]\n/B 2 >>", (d: PdfDict) => !d.has("Index") && (d.get("B") as PdfNumber).value === 2],
    ["hex strings (odd length padded)", "<< /H <41 4 > >>", (d: PdfDict) => Buffer.from((d.get("H") as PdfString).bytes).equals(Buffer.from([0x41, 0x40]))],
    ["names with #xx escapes", "<< /A#20B /C#23 >>", (d: PdfDict) => (d.get("A B") as PdfName).value === "C#"],
    [
      "references and nested containers",
      "<< /R 12 0 R /A [1 2 R 3] /D << /E [<< /F null >>] >> >>",
      (d: PdfDict) => (d.get("R") as PdfRef).objectNumber === 12 && (d.get("A") as PdfArray).length === 2,
    ],
  ] as const)("reads %s", (_name, text, check) => {
    const value = parse(text);
    expect(value).toBeInstanceOf(PdfDict);
    expect(check(value as PdfDict)).toBe(true);
  });

  it.each([
    ["a key named twice", "<< /Prev 1 /Prev 2 >>", /names \/Prev twice/],
    ["an unterminated string", "<< /S (abc >>", /unterminated string/],
    ["an unterminated dictionary", "<< /A 1", /unterminated dictionary/],
    ["nesting deeper than 64", `${"[".repeat(100)}${"]".repeat(100)}`, /nested too deeply/],
  ])("refuses %s", (_name, text, message) => {
    expect(() => parse(text)).toThrow(PdfSyntaxError);
    expect(() => parse(text)).toThrow(message);
  });
});

describe("readRevisions", () => {
  it("reads each revision of an honest file, with its own trailer and entries", async () => {
    const t = await inspect(await contractPdf());
    const updated = appendUpdate(t, [{ number: t.size, body: "<< /Title (x) >>" }]);
    const { revisions } = readRevisions(updated);
    expect(revisions).toHaveLength(2);
    expect(revisions[1]!.entries.get(t.size)).toMatchObject({ type: "offset", generation: 0 });
    expect(revisions[1]!.problems).toEqual([]);
    expect(revisions[1]!.startxref).toBe(updated.toString("latin1").lastIndexOf("\nxref\n") + 1);
  });

  it("names a hybrid file whose table and cross-reference stream disagree", async () => {
    const t = await inspect(await contractPdf());
    // The table defines the page content anew; the /XRefStm stream says it is where it was.
    const original = readRevisions(t.bytes).revisions[0]!.entries.get(t.content.objectNumber) as { offset: number };
    const hybrid = appendUpdate(t, [{ number: t.content.objectNumber, body: streamBody("", "BT ET") }], {
      xref: "hybrid",
      hybridEntries: { [t.content.objectNumber]: original.offset },
    });
    const { revisions } = readRevisions(hybrid);
    expect(revisions.at(-1)!.problems.join(" ")).toMatch(/table and cross-reference stream disagree about object/);
  });

  it("refuses xref-stream entries its data does not hold, before any loop", async () => {
    const t = await inspect(await contractPdf());
    const hostile = appendUpdate(t, [], { xref: "stream", widths: "[1 2 0]", index: "1 100000000", data: Buffer.alloc(30) });
    expect(() => readRevisions(hostile)).toThrow(SignetError);
    expect(() => readRevisions(hostile)).toThrow(/lists 100000000 entries but whose data holds 10/);
  });

  it("answers 422 when the time budget is spent", async () => {
    const t = await inspect(await contractPdf());
    const clock = { now: 0 };
    const budget = new VerifyBudget(4_000, () => clock.now);
    clock.now = 5_000;
    expect(() => new PdfRevisions(t.bytes, DEFAULT_VERIFY_LIMITS, budget)).toThrow(/took longer than 4 s to analyse/);
  });
});
