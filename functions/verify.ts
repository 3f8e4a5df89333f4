import { verifyDocument } from "#domain/verification/verify-document.ts";
import { verifyRoute } from "#http/contracts/verify.ts";
import { json } from "#http/responses.ts";
import { uploadedDocument } from "#http/upload-input.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { uploadDeps } from "#wiring/uploads.ts";
import { signing } from "#wiring/signing.ts";

/** makeVerifyHandler builds POST /v1/verify on a container: a report on every signature of the PDF (docs/api.md, "Sign and verify"). */
export function makeVerifyHandler(container: Container) {
  const dependencies = signing(container).verifyDependencies();
  const uploads = uploadDeps(container);
  return httpHandler(container, verifyRoute, async (req) => {
    // verify has no API key: an upload reference is then its own capability (functions/domain/shared/upload.ts).
    const input = await uploadedDocument(req.body.document, req.principal, uploads);
    const report = await verifyDocument(input.document, dependencies);
    await input.consumed();
    return json(200, report);
  });
}

/** handler answers POST /v1/verify with this process's container. */
export const handler = makeVerifyHandler(processContainer());
