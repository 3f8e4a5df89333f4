import PizZip from "pizzip";
import { describe, expect, it } from "vitest";
import { countXml, type XmlCount } from "#domain/docx/budget.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { readZipDirectory, readZipEntry, writeZip } from "#domain/shared/zip-container.ts";

const unlimited = { maxDocxControls: 1e9, maxDocxXmlNodes: 1e9, maxDocxControlNodes: 1e9 };
const count = (xml: string, budget = unlimited): XmlCount => {
  const result: XmlCount = { elements: 0, controls: 0, controlElements: 0 };
  countXml(Buffer.from(xml), budget, result);
  return result;
};

describe("countXml", () => {
  it.each([
    { name: "plain elements", xml: '<?xml version="1.0"?><a><b/><c x="1">t</c></a>', expected: { elements: 3, controls: 0, controlElements: 0 } },
    {
      name: "a control and its content",
      xml: "<w:p><w:sdt><w:sdtPr/><w:sdtContent><w:r/></w:sdtContent></w:sdt><w:r/></w:p>",
      expected: { elements: 6, controls: 1, controlElements: 4 },
    },
    {
      name: "nested and self-closing controls",
      xml: "<w:sdt><w:sdtContent><w:sdt/><sdt></sdt></w:sdtContent></w:sdt><x:sdt/>",
      expected: { elements: 5, controls: 4, controlElements: 5 },
    },
    { name: "names that only end in sdt", xml: "<w:sdtPr/><w:xsdt/><w:sdtContent/>", expected: { elements: 3, controls: 0, controlElements: 0 } },
    {
      name: "comments and CDATA hiding tags",
      xml: "<a><!-- <w:sdt> <b> --><![CDATA[<w:sdt><c>]]></a>",
      expected: { elements: 1, controls: 0, controlElements: 0 },
    },
  ])("counts $name", ({ xml, expected }) => expect(count(xml)).toEqual(expected));

  it.each([
    { limit: { maxDocxXmlNodes: 2 }, message: /more than 2 XML elements/ },
    { limit: { maxDocxControls: 1 }, message: /more than 1 content controls/ },
    { limit: { maxDocxControlNodes: 3 }, message: /content controls hold more than 3 XML elements/ },
  ])("stops at a limit with PAYLOAD_TOO_LARGE ($message)", ({ limit, message }) => {
    let caught: unknown;
    try {
      count("<a><w:sdt><w:sdtContent><b/><c/></w:sdtContent></w:sdt><w:sdt/></a>", { ...unlimited, ...limit });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SignetError);
    expect((caught as SignetError).code).toBe("PAYLOAD_TOO_LARGE");
    expect((caught as SignetError).message).toMatch(message);
  });
});

describe("writeZip", () => {
  it("writes a zip that our reader and pizzip both read back byte for byte", async () => {
    const entries = [
      { name: "[Content_Types].xml", data: Buffer.from("<Types/>") },
      { name: "word/résumé.xml", data: Buffer.from("x".repeat(100_000)) },
      { name: "empty", data: Buffer.alloc(0) },
    ];
    const zip = await writeZip(entries);
    const directory = readZipDirectory(zip, { maxEntries: 10, maxUncompressedBytes: 1e6 });
    expect(directory.map((entry) => entry.name)).toEqual(entries.map((entry) => entry.name));
    for (const [i, entry] of directory.entries()) expect(readZipEntry(zip, entry, 1e6).equals(entries[i]!.data)).toBe(true);
    const pizzip = new PizZip(zip);
    expect(pizzip.file("word/résumé.xml")!.asText()).toBe("x".repeat(100_000));
    expect(zip.length).toBeLessThan(2_000);
  });
});
