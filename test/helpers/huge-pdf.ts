/**
 * hugePdf writes a valid PDF of `pages` empty pages sharing one content stream, in a two-level
 * page tree (nodes of at most 1,000 pages): the smallest file with that many pages.
 */
export function hugePdf(pages: number, nodeSize = 1000): Buffer {
  const chunks: string[] = ["%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"];
  const offsets: number[] = [0];
  let length = Buffer.byteLength(chunks[0]!, "latin1");
  const add = (body: string) => {
    offsets.push(length);
    const text = `${offsets.length - 1} 0 obj\n${body}\nendobj\n`;
    chunks.push(text);
    length += text.length;
  };
  const nodes = Math.ceil(pages / nodeSize);
  // 1 catalog, 2 root, 3 content, 4..3+nodes intermediate nodes, then pages.
  add("<< /Type /Catalog /Pages 2 0 R >>");
  const nodeIds = Array.from({ length: nodes }, (_, index) => 4 + index);
  add(`<< /Type /Pages /Count ${pages} /Kids [${nodeIds.map((id) => `${id} 0 R`).join(" ")}] >>`);
  add("<< /Length 0 >>\nstream\n\nendstream");
  const firstPage = 4 + nodes;
  for (let node = 0; node < nodes; node++) {
    const count = Math.min(nodeSize, pages - node * nodeSize);
    const kids = Array.from({ length: count }, (_, index) => `${firstPage + node * nodeSize + index} 0 R`).join(" ");
    add(`<< /Type /Pages /Parent 2 0 R /Count ${count} /Kids [${kids}] >>`);
  }
  for (let page = 0; page < pages; page++) add(`<< /Type /Page /Parent ${4 + Math.floor(page / nodeSize)} 0 R /MediaBox [0 0 200 200] /Contents 3 0 R >>`);
  const xrefAt = length;
  const xref = [`xref\n0 ${offsets.length}\n0000000000 65535 f \n`, ...offsets.slice(1).map((offset) => `${String(offset).padStart(10, "0")} 00000 n \n`)].join(
    "",
  );
  chunks.push(xref, `trailer\n<< /Size ${offsets.length} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`);
  return Buffer.from(chunks.join(""), "latin1");
}
