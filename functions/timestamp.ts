import { config } from "#config";
import { createHttpTimestamper } from "#adapters/http-timestamper.ts";
import { revocationFetcher } from "#adapters/revocation-fetcher.ts";
import { safeFetcher } from "#adapters/safe-fetcher.ts";
import { uploadStore } from "#adapters/s3-upload-store.ts";
import { timestampDocument, type TimestampDependencies } from "#domain/signing/timestamp-document.ts";
import { timestampRoute } from "#http/contracts/timestamp.ts";
import { httpHandler } from "#http/pipeline.ts";
import { base64Text, json } from "#http/responses.ts";
import { uploadSettings, uploadedDocument } from "#http/upload-input.ts";

const { signing } = config;

const dependencies: TimestampDependencies = {
  fetcher: safeFetcher,
  revocationFetcher,
  limits: config.documentLimits,
  ...(signing.tsaUrl ? { timestamper: createHttpTimestamper(signing.tsaUrl) } : {}),
};

const uploads = { store: uploadStore, settings: uploadSettings(config) };

/** handler answers POST /v1/timestamp: the signed PDF with fresh validation data and a document timestamp (B-LTA). */
export const handler = httpHandler(timestampRoute, async (req) => {
  const input = await uploadedDocument(req.body.document, req.principal, uploads);
  const stamped = await timestampDocument(input.document, dependencies);
  await input.consumed();
  return json(200, { document: { base64: base64Text(stamped), contentType: "application/pdf" } });
});
