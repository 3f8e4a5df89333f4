import { signDocumentWithNotices } from "#domain/signing/sign-document.ts";
import { signRoute } from "#http/contracts/sign.ts";
import { base64Text, json } from "#http/responses.ts";
import { uploadedDocument } from "#http/upload-input.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { uploadDeps } from "#wiring/uploads.ts";
import { signDependencies } from "#wiring/signing.ts";

/** makeSignHandler builds POST /v1/sign on a container: the document signed PAdES at the requested level (B-B..B-LTA), plain base64. */
export function makeSignHandler(container: Container) {
  const dependencies = signDependencies(container);
  const uploads = uploadDeps(container);
  return httpHandler(container, signRoute, async (req) => {
    const input = await uploadedDocument(req.body.document, req.principal, uploads);
    const { signed, notices } = await signDocumentWithNotices({ ...req.body, document: input.document }, dependencies);
    await input.consumed();
    // base64Text: the megabytes go into the JSON answer without a second scan and copy.
    return json(200, { document: { base64: base64Text(signed), contentType: "application/pdf" } }, notices);
  });
}

/** handler answers POST /v1/sign with this process's container. */
export const handler = makeSignHandler(processContainer());
