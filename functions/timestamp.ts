import { timestampDocument } from "#domain/signing/timestamp-document.ts";
import { timestampRoute } from "#http/contracts/timestamp.ts";
import { base64Text, json } from "#http/responses.ts";
import { uploadedDocument } from "#http/upload-input.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { uploadDeps } from "#wiring/uploads.ts";
import { timestampDependencies } from "#wiring/signing.ts";

/** makeTimestampHandler builds POST /v1/timestamp on a container: the signed PDF with fresh validation data and a document timestamp (B-LTA). */
export function makeTimestampHandler(container: Container) {
  const dependencies = timestampDependencies(container);
  const uploads = uploadDeps(container);
  return httpHandler(container, timestampRoute, async (req) => {
    const input = await uploadedDocument(req.body.document, req.principal, uploads);
    const stamped = await timestampDocument(input.document, dependencies);
    await input.consumed();
    return json(200, { document: { base64: base64Text(stamped), contentType: "application/pdf" } });
  });
}

/** handler answers POST /v1/timestamp with this process's container. */
export const handler = makeTimestampHandler(processContainer());
