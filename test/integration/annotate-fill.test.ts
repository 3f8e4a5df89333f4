import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { describeFields, fillTemplate, type Field } from "#domain/docx/annotate.ts";
import { blockControl, buildDocx, checkboxControl, inlineControl, p, partNames, readPart, run, table } from "#test/helpers/docx-builder.ts";
import { dataUri, makePng } from "#test/helpers/annotate-images.ts";
import { expectSignetError } from "#test/helpers/signet-error.ts";
import { annotateLimits, noFetch } from "#test/helpers/annotate-limits.ts";

const fill = (docx: Buffer, fields: Field[]) => fillTemplate(docx, fields, { fetcher: noFetch, limits: annotateLimits });

const superdocTag = (fieldId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ fieldId, fieldTypeShort: "text", displayLabel: "Name", ...extra });

describe("matching (docs/api.md, Annotate)", () => {
  const docx = buildDocx({
    body:
      p(run("SuperDoc: ") + inlineControl({ tag: superdocTag("name"), id: "101" })) +
      p(run("Legacy: ") + inlineControl({ tag: "legacy-1", id: "102", extra: '<w:fieldTypeShort w:val="text"/>' })) +
      p(run("Word tag: ") + inlineControl({ tag: "city", id: "103" })) +
      p(run("By w:id: ") + inlineControl({ id: "104" })) +
      p(run("Group A: ") + inlineControl({ tag: JSON.stringify({ group: "customer-info" }), id: "105" })) +
      p(run("Group B: ") + inlineControl({ tag: JSON.stringify({ group: "customer-info" }), id: "106" })) +
      p(run("Shadow: ") + inlineControl({ tag: "101", id: "107" })),
  });

  it.each([
    { field: { id: "name", type: "text", value: "Ada" }, filled: ["101"] },
    { field: { id: "legacy-1", type: "text", value: "Legacy" }, filled: ["102"] },
    { field: { id: "city", type: "text", value: "London" }, filled: ["103"] },
    { field: { id: "104", type: "text", value: "by id" }, filled: ["104"] },
    { field: { group: "customer-info", type: "text", value: "ACME" }, filled: ["105", "106"] },
    // w:id outranks a plain tag with the same text: only control 101 is filled, not the one tagged "101".
    { field: { id: "101", type: "text", value: "first rule" }, filled: ["101"] },
  ] as Array<{ field: Field; filled: string[] }>)("%o fills $filled", async ({ field, filled }) => {
    const xml = readPart(await fill(docx, [field]), "word/document.xml");
    const controls = xml.split("<w:sdt>").slice(1);
    for (const control of controls) {
      const id = /<w:id w:val="(\d+)"/.exec(control)![1]!;
      expect(control.includes(`>${field.value as string}<`), `control ${id}`).toBe(filled.includes(id));
    }
  });

  it("reports every unmatched id and group", async () => {
    const error = await expectSignetError(
      fill(docx, [
        { id: "nope", type: "text", value: "x" },
        { id: "name", type: "text", value: "ok" },
        { group: "ghosts", type: "text", value: "y" },
      ]),
      "FIELD_NOT_FOUND",
    );
    expect(error.details).toEqual([
      { field: "fields.0", issue: expect.stringContaining('"nope"') },
      { field: "fields.2", issue: expect.stringContaining('"ghosts"') },
    ]);
  });

  it("lists fields with ids, group, alias, kind and location", async () => {
    const { fields } = await describeFields(docx, annotateLimits);
    expect(fields).toHaveLength(7);
    expect(fields[0]).toEqual({ ids: ["name", "101"], group: null, alias: null, kind: "text", location: { part: "word/document.xml", index: 0 } });
    expect(fields[1]!.ids).toEqual(["legacy-1", "102"]);
    expect(fields[4]!.group).toBe("customer-info");
  });
});

describe("text", () => {
  it("keeps the first run's formatting, drops the placeholder style and state, escapes and breaks lines", async () => {
    const docx = buildDocx({ body: p(inlineControl({ tag: "note", rPr: '<w:b/><w:color w:val="FF0000"/>' })) });
    const xml = readPart(await fill(docx, [{ id: "note", type: "text", value: "a < b & c\nline two\tTabbed" }]), "word/document.xml");
    expect(xml).not.toContain("showingPlcHdr");
    expect(xml).not.toContain("PlaceholderText");
    expect(xml).toContain(
      '<w:rPr><w:b/><w:color w:val="FF0000"/></w:rPr><w:t xml:space="preserve">a &lt; b &amp; c</w:t><w:br/><w:t xml:space="preserve">line two</w:t><w:tab/><w:t xml:space="preserve">Tabbed</w:t>',
    );
    expect(xml).not.toContain("Click here");
  });

  it("drops the formatting with keepTextNodeStyles false", async () => {
    const docx = buildDocx({ body: p(inlineControl({ tag: "note", rPr: "<w:b/>" })) });
    const xml = readPart(await fill(docx, [{ id: "note", type: "text", value: "plain", options: { keepTextNodeStyles: false } }]), "word/document.xml");
    expect(xml).toContain('<w:sdtContent><w:r><w:t xml:space="preserve">plain</w:t></w:r></w:sdtContent>');
  });

  it("fills a block control keeping its first paragraph's properties", async () => {
    const docx = buildDocx({
      body: blockControl({ tag: "terms" }, `<w:p><w:pPr><w:jc w:val="center"/></w:pPr>${run("first", "<w:i/>")}</w:p>${p(run("second"))}`),
    });
    const xml = readPart(await fill(docx, [{ id: "terms", type: "text", value: "New terms" }]), "word/document.xml");
    expect(xml).toContain(
      '<w:sdtContent><w:p><w:pPr><w:jc w:val="center"/></w:pPr><w:r><w:rPr><w:i/></w:rPr><w:t xml:space="preserve">New terms</w:t></w:r></w:p></w:sdtContent>',
    );
    expect(xml).not.toContain("second");
  });

  it("fills controls in headers, footers, footnotes, table cells and text boxes", async () => {
    const textBox = `<w:r><w:drawing><wp:inline><wp:extent cx="1000000" cy="500000"/><wp:docPr id="7" name="Box"/><a:graphic><a:graphicData uri="http://schemas.microsoft.com/office/word/2010/wordprocessingShape"><wps:wsp><wps:txbx><w:txbxContent>${p(inlineControl({ tag: "boxed" }))}</w:txbxContent></wps:txbx></wps:wsp></a:graphicData></a:graphic></wp:inline></w:drawing></w:r>`;
    const docx = buildDocx({
      header: p(inlineControl({ tag: "top" })),
      footer: p(inlineControl({ tag: "bottom" })),
      footnote: p(inlineControl({ tag: "note" })),
      body: table([["cell"]]).replace(run("cell"), inlineControl({ tag: "cell" })) + p(textBox),
    });
    const fields: Field[] = ["top", "bottom", "note", "cell", "boxed"].map((id) => ({ id, type: "text", value: `value-${id}` }));
    const out = await fill(docx, fields);
    expect(readPart(out, "word/header1.xml")).toContain("value-top");
    expect(readPart(out, "word/footer1.xml")).toContain("value-bottom");
    expect(readPart(out, "word/footnotes.xml")).toContain("value-note");
    const body = readPart(out, "word/document.xml");
    expect(body).toContain("value-cell");
    expect(body).toContain("value-boxed");
  });

  it("fills a control in an endnote (word/endnotes.xml), and LibreOffice renders the value", async () => {
    const docx = buildDocx({
      body: p(run("Body text") + '<w:r><w:rPr><w:vertAlign w:val="superscript"/></w:rPr><w:endnoteReference w:id="1"/></w:r>'),
      endnote: p(run("Endnote: ") + inlineControl({ tag: "endnote-field", placeholder: "Endnote placeholder" })),
    });
    expect((await describeFields(docx, annotateLimits)).fields.map((field) => field.location.part)).toEqual(["word/endnotes.xml"]);
    const out = await fill(docx, [{ id: "endnote-field", type: "text", value: "Filled in the endnote" }]);
    const endnotes = readPart(out, "word/endnotes.xml");
    expect(endnotes).toContain("Filled in the endnote");
    expect(endnotes).not.toContain("Endnote placeholder");
    expect(endnotes).not.toContain("w:showingPlcHdr");
    expect(readPart(out, "word/document.xml")).not.toContain("Filled in the endnote");
    // The filled endnote as LibreOffice lays it out (one-shot soffice, private profile).
    const dir = mkdtempSync(join(tmpdir(), "signet-annotate-endnote-"));
    try {
      writeFileSync(join(dir, "filled.docx"), out);
      execFileSync(
        "soffice",
        [
          `-env:UserInstallation=${pathToFileURL(join(dir, "profile")).href}`,
          "--headless",
          "--norestore",
          "--convert-to",
          "pdf",
          "--outdir",
          dir,
          join(dir, "filled.docx"),
        ],
        {
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
          timeout: 60_000,
          stdio: "ignore",
        },
      );
      const text = execFileSync("pdftotext", [join(dir, "filled.pdf"), "-"], { encoding: "utf8" });
      expect(text).toContain("Endnote: Filled in the endnote");
      expect(text).not.toContain("Endnote placeholder");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it("fills {{id}} placeholders, leaves unknown ones and never re-reads values as tags", async () => {
    const docx = buildDocx({ body: p(run("Dear {{first") + run("Name}}, ref {{other}}")) + p(inlineControl({ tag: "firstName" })) });
    const xml = readPart(await fill(docx, [{ id: "firstName", type: "text", value: "Ada {{other}}" }]), "word/document.xml");
    expect(xml).toContain("Dear Ada {{other}}");
    expect(xml).toContain("ref {{other}}");
    expect(xml.match(/Ada \{\{other\}\}/g)).toHaveLength(2);
  });

  it("looks values up as own properties: {{constructor}} stays, {{__proto__}} can be filled", async () => {
    const docx = buildDocx({ body: p(run("A {{constructor}} B {{toString}} C {{__proto__}}")) });
    const xml = readPart(await fill(docx, [{ id: "__proto__", type: "text", value: "proto" }]), "word/document.xml");
    expect(xml).toContain(">A {{constructor}} B {{toString}} C proto<");
    expect(xml).not.toContain("[object");
  });

  it("leaves loop, section and raw tags that no field names as they were", async () => {
    const text = "C {{#items}}KEEP ME{{/items}} D {{^none}}x{{/none}} E {{@raw}} F {{-w:p loop}}";
    const docx = buildDocx({ body: p(run(`${text} G {{name}}`)) });
    const xml = readPart(await fill(docx, [{ id: "name", type: "text", value: "Ada" }]), "word/document.xml");
    expect(xml).toContain(`>${text} G Ada<`);
  });

  it("counts a field matching only a placeholder as matched", async () => {
    const docx = buildDocx({ body: p(run("Total: {{ total }}")) });
    const xml = readPart(await fill(docx, [{ id: "total", type: "text", value: "42" }]), "word/document.xml");
    expect(xml).toContain("Total: 42");
  });
});

describe("type checks", () => {
  const docx = buildDocx({
    body: p(inlineControl({ tag: "inline" })) + p(checkboxControl({ tag: "box" })) + blockControl({ tag: "grid" }, table([["a", "b"]])) + p(run("{{only}}")),
  });
  it.each([
    { field: { id: "inline", type: "table", value: [["x"]] }, issue: "inline text control" },
    { field: { id: "box", type: "image", value: dataUri(makePng(2, 2)) }, issue: "checkbox control" },
    { field: { id: "grid", type: "text", value: "x" }, issue: "table control" },
    { field: { id: "inline", type: "checkbox", value: "true" }, issue: "inline text control" },
    { field: { id: "only", type: "checkbox", value: "true" }, issue: "placeholder" },
  ] as Array<{ field: Field; issue: string }>)("$field.type into $field.id is FIELD_TYPE_MISMATCH", async ({ field, issue }) => {
    const error = await expectSignetError(fill(docx, [field]), "FIELD_TYPE_MISMATCH");
    expect(error.details?.[0]?.issue).toContain(issue);
  });

  it("refuses a table row wider than the table", async () => {
    const error = await expectSignetError(fill(docx, [{ id: "grid", type: "table", value: [["1", "2", "3"]] }]), "FIELD_TYPE_MISMATCH");
    expect(error.details).toEqual([{ field: "fields.0.value.0", issue: "3 cells for 2 columns" }]);
  });

  it.each([
    { value: "data:image/png;base64,!!!", issue: "malformed data URI" },
    { value: dataUri(Buffer.from("%PDF-1.7 not an image")), issue: "not a PNG, JPEG, GIF, WebP or SVG" },
    { value: "ftp://example.com/a.png", issue: "neither a data URI nor a URL" },
  ])("image $issue is INVALID_IMAGE", async ({ value, issue }) => {
    const error = await expectSignetError(fill(docx, [{ id: "inline", type: "image", value }]), "INVALID_IMAGE");
    expect(error.details?.[0]?.issue).toContain(issue);
  });
});

describe("checkbox, table, image", () => {
  it("toggles a checkbox state and symbol both ways", async () => {
    const docx = buildDocx({ body: p(checkboxControl({ tag: "yes", checked: false })) + p(checkboxControl({ tag: "no", checked: true })) });
    const xml = readPart(
      await fill(docx, [
        { id: "yes", type: "checkbox", value: "true" },
        { id: "no", type: "checkbox", value: false },
      ]),
      "word/document.xml",
    );
    const [yes, no] = xml.split("<w:sdt>").slice(1);
    expect(yes).toContain('<w14:checked w14:val="1"/>');
    expect(yes).toContain("<w:t>\u2612</w:t>");
    expect(no).toContain('<w14:checked w14:val="0"/>');
    expect(no).toContain("<w:t>\u2610</w:t>");
  });

  it("appends escaped rows, copying the last row's style when asked", async () => {
    const docx = buildDocx({ body: blockControl({ tag: "items" }, table([["Item", "Qty"]], { cellRPr: "<w:b/>" })) });
    const rows = [
      ["Widget <big>", "2"],
      ["Gadget & co", "10"],
    ];
    const copied = readPart(await fill(docx, [{ id: "items", type: "table", value: rows, options: { copyRowStyle: true } }]), "word/document.xml");
    expect(copied.match(/<w:tr>/g)).toHaveLength(3);
    expect(copied).toContain('<w:rPr><w:b/></w:rPr><w:t xml:space="preserve">Widget &lt;big&gt;</w:t>');
    expect(copied).toContain("Gadget &amp; co");
    const plain = readPart(await fill(docx, [{ id: "items", type: "table", value: rows }]), "word/document.xml");
    expect(plain.match(/<w:tr>/g)).toHaveLength(3);
    expect(plain).toContain('<w:tc><w:tcPr><w:tcW w:w="4500" w:type="dxa"/></w:tcPr><w:p><w:r><w:t xml:space="preserve">Widget &lt;big&gt;</w:t>');
  });

  it("adds the media part, relationship, content type and an inline drawing of the requested size", async () => {
    const docx = buildDocx({ body: p(inlineControl({ tag: "logo" })), header: p(inlineControl({ tag: "logo" })) });
    const png = makePng(200, 100);
    const out = await fill(docx, [{ id: "logo", type: "image", value: dataUri(png), options: { dimensions: { width: "100" } } }]);
    expect(partNames(out)).toContain("word/media/signet-image-1.png");
    expect(readPart(out, "[Content_Types].xml")).toContain('<Default Extension="png" ContentType="image/png"/>');
    const body = readPart(out, "word/document.xml");
    expect(body).toContain(`<wp:extent cx="${100 * 9525}" cy="${50 * 9525}"/>`);
    const rid = /r:embed="([^"]+)"/.exec(body)![1]!;
    expect(readPart(out, "word/_rels/document.xml.rels")).toContain(
      `Id="${rid}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/signet-image-1.png"`,
    );
    // The header has its own relationships part.
    const headerRels = readPart(out, "word/_rels/header1.xml.rels");
    expect(headerRels).toContain('Target="media/signet-image-1.png"');
    const ids = [...body.matchAll(/wp:docPr id="(\d+)"/g), ...readPart(out, "word/header1.xml").matchAll(/wp:docPr id="(\d+)"/g)].map((m) => m[1]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("caps a large natural-size image at the text width", async () => {
    const docx = buildDocx({ body: p(inlineControl({ tag: "wide" })) });
    const out = await fill(docx, [{ id: "wide", type: "signature", value: dataUri(makePng(1248, 100)) }]);
    // Letter page 12240 twips minus 2 x 1440 margins = 9360 twips = 624 px.
    expect(readPart(out, "word/document.xml")).toContain(`<wp:extent cx="${624 * 9525}" cy="${50 * 9525}"/>`);
  });
});

describe("package safety", () => {
  it("refuses a DOCTYPE in a part", async () => {
    const docx = buildDocx({ body: p(run("x")) });
    const PizZip = (await import("pizzip")).default;
    const zip = new PizZip(docx);
    zip.file(
      "word/document.xml",
      `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "boom">]>${zip
        .file("word/document.xml")!
        .asText()
        .replace(/^<\?xml[^>]*\?>/, "")}`,
    );
    const error = await expectSignetError(fill(zip.generate({ type: "nodebuffer" }), []), "INVALID_DOCUMENT");
    expect(error.message).toContain("DTD");
  });

  it("refuses an entry that inflates beyond its declared size", async () => {
    const docx = buildDocx({ body: p(run("x".repeat(5000))) });
    const bytes = Buffer.from(docx);
    // Lower the declared size of word/document.xml in the central directory and the local header.
    const name = Buffer.from("word/document.xml");
    for (let i = bytes.indexOf(name); i >= 0; i = bytes.indexOf(name, i + 1)) {
      if (bytes.readUInt32LE(i - 46) === 0x02014b50) bytes.writeUInt32LE(100, i - 46 + 24);
      if (bytes.readUInt32LE(i - 30) === 0x04034b50) bytes.writeUInt32LE(100, i - 30 + 22);
    }
    await expectSignetError(fill(bytes, []), "PAYLOAD_TOO_LARGE");
  });
});
