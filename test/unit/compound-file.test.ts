import { describe, expect, it } from "vitest";
import { readCompoundStreams } from "#domain/shared/compound-file.ts";
import { type OfficeInputLimits, prepareOfficeInput } from "#domain/documents/checks/scrub.ts";
import { docFixture, sharedChainDoc } from "#test/helpers/compound-files.ts";
import { expectSignetError } from "#test/helpers/signet-error.ts";

const MB = 1024 * 1024;
const OFFICE_LIMITS: OfficeInputLimits = { maxEntries: 5000, maxUncompressedBytes: 200 * MB, maxImagePixels: 100_000_000, maxSvgBytes: 10 * MB };
const total = (streams: ReadonlyArray<{ bytes: Buffer }>) => streams.reduce((sum, stream) => sum + stream.bytes.length, 0);

describe("compound file streams", () => {
  it("reads every stream of a real .doc, together no more than the file", async () => {
    const bytes = docFixture("embedded-picture-inline.doc");
    const streams = await readCompoundStreams(bytes, ".doc file");
    expect(streams.map((stream) => stream.name)).toEqual(expect.arrayContaining(["WordDocument", "1Table", "Data"]));
    expect(total(streams)).toBeLessThanOrEqual(bytes.length);
  });

  it("copies a stream only as far as the size it declares, however long its chain", async () => {
    // One entry over a 2 MB chain, declaring 10,000 bytes.
    const bytes = sharedChainDoc(2 * MB, 1);
    const dirAt = (bytes.readUInt32LE(48) + 1) * 4096;
    bytes.writeUInt32LE(10_000, dirAt + 128 + 120);
    const streams = await readCompoundStreams(bytes, ".doc file");
    expect(streams.map((stream) => [stream.name, stream.bytes.length])).toEqual([["WordDocument", 10_000]]);
  });

  it("refuses entries that share a chain (21 MB, 100 entries: it was copied 100 times, 2.3 GB), before copying more than the file", async () => {
    const bytes = sharedChainDoc(21 * MB, 100);
    const error = await expectSignetError(readCompoundStreams(bytes, ".doc file"), "INVALID_DOCUMENT");
    expect(error.message).toBe(
      "The .doc file is damaged (a sector chain loops, or two streams share a sector); save it again from a word processor and upload it again.",
    );
    await expectSignetError(prepareOfficeInput({ bytes, from: "doc", to: "pdf" }, OFFICE_LIMITS), "INVALID_DOCUMENT");
    // A chain that runs into itself is the same refusal.
    const looped = sharedChainDoc(64 * 1024, 1);
    const fatAt = (looped.readUInt32LE(76) + 1) * 4096;
    const first = looped.readUInt32LE(48) + looped.readUInt32LE(40);
    looped.writeUInt32LE(first, fatAt + (first + 5) * 4);
    await expectSignetError(readCompoundStreams(looped, ".doc file"), "INVALID_DOCUMENT");
  });
});
