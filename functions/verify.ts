import { verifyDocument } from "#domain/verification/verify-document.ts";
import { verifyRoute } from "#http/contracts/verify.ts";
import { httpHandler } from "#wiring/http.ts";
import { json } from "#http/responses.ts";
import { uploadedDocument } from "#http/upload-input.ts";
import { verifyDependencies } from "#wiring/signing.ts";
import { uploadDeps } from "#wiring/uploads.ts";

const dependencies = verifyDependencies();
const uploads = uploadDeps();

/** handler answers POST /v1/verify with a report on every signature of the PDF (docs/api.md, "Sign and verify"). */
export const handler = httpHandler(verifyRoute, async (req) => {
  // verify has no API key: an upload reference is then its own capability (functions/domain/shared/upload.ts).
  const input = await uploadedDocument(req.body.document, req.principal, uploads);
  const report = await verifyDocument(input.document, dependencies);
  await input.consumed();
  return json(200, report);
});
