import { config } from "#config";
import { safeFetcher } from "#adapters/safe-fetcher.ts";
import { uploadStore } from "#adapters/s3-upload-store.ts";
import { trustStore } from "#adapters/trust-anchors.ts";
import { verifyDocument, type VerifyDependencies } from "#domain/signing/verify-document.ts";
import { verifyRoute } from "#http/contracts/verify.ts";
import { httpHandler } from "#wiring/http.ts";
import { json } from "#http/responses.ts";
import { uploadSettings, uploadedDocument } from "#http/upload-input.ts";

const dependencies: VerifyDependencies = {
  fetcher: safeFetcher,
  limits: config.documentLimits,
  trust: trustStore,
};

const uploads = { store: uploadStore, settings: uploadSettings(config) };

/** handler answers POST /v1/verify with a report on every signature of the PDF (SPEC 4). */
export const handler = httpHandler(verifyRoute, async (req) => {
  // verify has no API key: an upload reference is then its own capability (functions/domain/shared/upload.ts).
  const input = await uploadedDocument(req.body.document, req.principal, uploads);
  const report = await verifyDocument(input.document, dependencies);
  await input.consumed();
  return json(200, report);
});
