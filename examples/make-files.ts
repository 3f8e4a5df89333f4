// Writes the sample documents the walk-throughs send (examples/files/). They are committed, so
// this only needs to run again when they should change: npm run examples:files
import { mkdirSync, writeFileSync } from "node:fs";
import { deflateSync } from "node:zlib";
import { EXAMPLE_PDF_BASE64 } from "#http/openapi-examples.ts";
import { blockControl, buildDocx, checkboxControl, inlineControl, p, run, table } from "#test/helpers/docx-builder.ts";

const dir = new URL("./files/", import.meta.url);
mkdirSync(dir, { recursive: true });

// A one-page PDF (the same one the API reference's sign example carries).
writeFileSync(new URL("contract.pdf", dir), Buffer.from(EXAMPLE_PDF_BASE64, "base64"));

// A plain DOCX to sign (Signet converts it to PDF first) and to convert.
writeFileSync(
  new URL("contract.docx", dir),
  buildDocx({
    body:
      p(run("Service agreement", '<w:b/><w:sz w:val="36"/>')) +
      p(run("This agreement is made between Analytical Engines Ltd and Ada Lovelace.")) +
      p(run("The supplier delivers one difference engine by 1 December 2026.")),
  }),
);

// A template with one content control per field type, a group and a {{placeholder}}.
writeFileSync(
  new URL("template.docx", dir),
  buildDocx({
    header: p(run("Contract {{contractNo}}")),
    body:
      p(run("Service agreement", '<w:b/><w:sz w:val="36"/>')) +
      p(run("Customer: ") + inlineControl({ tag: "customer-name", alias: "Customer name", placeholder: "Customer name", rPr: "<w:b/>" })) +
      p(run("Billing company: ") + inlineControl({ tag: JSON.stringify({ group: "company" }), placeholder: "Company" })) +
      p(run("Shipping company: ") + inlineControl({ tag: JSON.stringify({ group: "company" }), placeholder: "Company" })) +
      p(run("Logo: ") + inlineControl({ tag: "logo", placeholder: "Logo" })) +
      blockControl({ tag: "items" }, table([["Item", "Quantity", "Price"]])) +
      p(run("Accepted: ") + checkboxControl({ tag: "agree" })) +
      p(run("Signature: ") + inlineControl({ tag: "signature", placeholder: "Sign here" })),
  }),
);

// A template filled from `data`: values, a dotted path, a paragraph loop, a table-row loop and a condition.
writeFileSync(
  new URL("invoice.docx", dir),
  buildDocx({
    body:
      p(run("Invoice {{number}}", '<w:b/><w:sz w:val="32"/>')) +
      p(run("For {{customer.name}}, {{customer.address.city}}")) +
      p(run("{{#notes}}")) +
      p(run("Note: {{.}}")) +
      p(run("{{/notes}}")) +
      table([
        ["Item", "Quantity", "Price"],
        ["{{#items}}{{name}}", "{{qty}}", "{{price}}{{/items}}"],
      ]) +
      p(run("{{#paid}}Paid, thank you.{{/paid}}{{^paid}}Payment due within 30 days.{{/paid}}")),
  }),
);

// A 160x48 PNG with a dark stroke, for the image and signature fields.
function png(width: number, height: number, ink: (x: number, y: number) => boolean): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const rows = Buffer.alloc((width + 1) * height, 255);
  for (let y = 0; y < height; y++) {
    rows[y * (width + 1)] = 0;
    for (let x = 0; x < width; x++) if (ink(x, y)) rows[y * (width + 1) + 1 + x] = 30;
  }
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
writeFileSync(
  new URL("signature.png", dir),
  png(160, 48, (x, y) => Math.abs(y - (24 + 14 * Math.sin(x / 12))) < 2),
);
// The same stroke as SVG, for an SVG signature picture (annotate embeds it with a PNG fallback).
const stroke = Array.from({ length: 41 }, (_, i) => `${i * 4},${(24 + 14 * Math.sin((i * 4) / 12)).toFixed(1)}`).join(" ");
writeFileSync(
  new URL("signature.svg", dir),
  `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="48" viewBox="0 0 160 48"><title>Signature</title><polyline points="${stroke}" fill="none" stroke="#1e1e1e" stroke-width="3" stroke-linecap="round" stroke-linejoin="round"/></svg>\n`,
);
// A short Markdown note (a GitHub table too), for converting Markdown to Word.
writeFileSync(
  new URL("notes.md", dir),
  "# Meeting notes\n\nSigned off the **service agreement** with Analytical Engines Ltd.\n\n| item | quantity |\n|---|---|\n| Difference engine | 1 |\n| Punched cards | 500 |\n\n- send the contract for signature\n- archive the signed PDF\n",
);
process.stdout.write("wrote examples/files/: contract.pdf, contract.docx, template.docx, invoice.docx, signature.png, signature.svg, notes.md\n");
