import { timestampDocument } from "#domain/signing/timestamp-document.ts";
import { timestampRoute } from "#http/contracts/timestamp.ts";
import { base64Text, json } from "#http/responses.ts";
import { uploadedDocument } from "#http/upload-input.ts";
import { httpHandler } from "#wiring/http.ts";
import { timestampDependencies } from "#wiring/signing.ts";
import { uploadDeps } from "#wiring/uploads.ts";

const dependencies = timestampDependencies();
const uploads = uploadDeps();

/** handler answers POST /v1/timestamp: the signed PDF with fresh validation data and a document timestamp (B-LTA). */
export const handler = httpHandler(timestampRoute, async (req) => {
  const input = await uploadedDocument(req.body.document, req.principal, uploads);
  const stamped = await timestampDocument(input.document, dependencies);
  await input.consumed();
  return json(200, { document: { base64: base64Text(stamped), contentType: "application/pdf" } });
});
