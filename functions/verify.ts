import { config } from "#config";
import { safeFetcher } from "#adapters/safe-fetcher.ts";
import { trustStore } from "#adapters/trust-anchors.ts";
import { verifyDocument, type VerifyDependencies } from "#domain/verify-document.ts";
import { verifyRoute } from "#http/contracts/verify.ts";
import { httpHandler } from "#http/pipeline.ts";
import { json } from "#http/responses.ts";

const dependencies: VerifyDependencies = {
  fetcher: safeFetcher,
  limits: config.documentLimits,
  trust: trustStore,
};

/** handler answers POST /v1/verify with a report on every signature of the PDF (SPEC 4). */
export const handler = httpHandler(verifyRoute, async (req) => json(200, await verifyDocument(req.body.document, dependencies)));
