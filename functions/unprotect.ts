import { unprotectDocument } from "#domain/pdf-tools/protect.ts";
import { unprotectRoute } from "#http/contracts/pdf-protect.ts";
import { base64Text, json } from "#http/responses.ts";
import { uploadedDocument } from "#http/upload-input.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { passwordToolDependencies } from "#wiring/pdf-passwords.ts";
import { uploadDeps } from "#wiring/uploads.ts";

/** makeUnprotectHandler builds POST /v1/unprotect on a container: the PDF without its encryption (docs/api.md, "Passwords"). */
export function makeUnprotectHandler(container: Container) {
  const dependencies = passwordToolDependencies(container);
  const uploads = uploadDeps(container);
  return httpHandler(container, unprotectRoute, async (req) => {
    const input = await uploadedDocument(req.body.document, req.principal, uploads);
    const { pdf, droppedSignatures } = await unprotectDocument({ ...req.body, document: input.document }, dependencies);
    await input.consumed();
    return json(200, { document: { base64: base64Text(pdf), contentType: "application/pdf" }, droppedSignatures });
  });
}

/** handler answers POST /v1/unprotect with this process's container. */
export const handler = makeUnprotectHandler(processContainer());
