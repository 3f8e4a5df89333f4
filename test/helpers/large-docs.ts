// Large test documents: real PDFs and DOCX files padded with incompressible bytes to a
// chosen size, and the client side of an upload (POST /v1/uploads, then the presigned POST).
import { randomBytes } from "node:crypto";
import { PDFDocument, PDFName } from "pdf-lib";
import PizZip from "pizzip";
import { buildDocx, p, run } from "#test/helpers/docx-builder.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";

/** makeLargePdf is a 3-page PDF carrying a random-byte stream, so its file is about `bytes` long. */
export async function makeLargePdf(bytes: number): Promise<Buffer> {
  const doc = await PDFDocument.load(await makePdf(3));
  const base = (await doc.save()).length;
  const padding = doc.context.register(doc.context.stream(randomBytes(Math.max(0, bytes - base - 200))));
  doc.catalog.set(PDFName.of("SignetPadding"), padding);
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** makeLargeDocx is a one-paragraph DOCX with a stored (uncompressed) random part, about `bytes` long. */
export function makeLargeDocx(bytes: number, text = "Large document for the upload test"): Buffer {
  const zip = new PizZip(buildDocx({ body: p(run(text)) }));
  zip.file("word/media/padding.bin", randomBytes(bytes), { compression: "STORE" });
  return zip.generate({ type: "nodebuffer", compression: "DEFLATE" });
}

/** UploadGrant is the answer of POST /v1/uploads. */
export interface UploadGrant {
  upload: string;
  url: string;
  fields: Record<string, string>;
  expiresAt: string;
  maxBytes: number;
}

/** requestUpload asks POST /v1/uploads for a grant. */
export async function requestUpload(apiUrl: string, key: string): Promise<{ status: number; grant: UploadGrant }> {
  const response = await fetch(`${apiUrl}/v1/uploads`, { method: "POST", headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, grant: (await response.json()) as UploadGrant };
}

/** postUpload sends a file the way a browser form would: every granted field, then the file. */
export async function postUpload(
  grant: Pick<UploadGrant, "url" | "fields">,
  bytes: Buffer,
  fileName = "document.bin",
): Promise<{ status: number; text: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(grant.fields)) form.append(name, value);
  form.append("file", new Blob([bytes]), fileName);
  const response = await fetch(grant.url, { method: "POST", body: form });
  return { status: response.status, text: await response.text() };
}

/** upload runs both steps and fails loudly when either is refused; it answers the reference. */
export async function upload(apiUrl: string, key: string, bytes: Buffer): Promise<string> {
  const { status, grant } = await requestUpload(apiUrl, key);
  if (status !== 200) throw new Error(`POST /v1/uploads answered ${status}`);
  const posted = await postUpload(grant, bytes);
  if (posted.status !== 204) throw new Error(`the presigned POST answered ${posted.status}: ${posted.text}`);
  return grant.upload;
}
