import { config } from "#config";
import { fontFiles } from "#adapters/bundled-fonts.ts";
import { createHttpTimestamper } from "#adapters/http-timestamper.ts";
import { identityStore } from "#adapters/identity.ts";
import { converter } from "#adapters/libreoffice/converter.ts";
import { safeFetcher } from "#adapters/safe-fetcher.ts";
import { uploadStore } from "#adapters/s3-upload-store.ts";
import { signDocument, type SignDependencies } from "#domain/signing/sign-document.ts";
import { signRoute } from "#http/contracts/sign.ts";
import { httpHandler } from "#wiring/http.ts";
import { base64Text, json } from "#http/responses.ts";
import { uploadSettings, uploadedDocument } from "#http/upload-input.ts";

const { limits, signing } = config;

const dependencies: SignDependencies = {
  fetcher: safeFetcher,
  converter,
  identities: identityStore,
  fonts: fontFiles,
  limits: {
    ...config.documentLimits,
    maxAuditEvents: limits.maxAuditEvents,
    maxMetadataBytes: limits.maxMetadataBytes,
  },
  ...(signing.tsaUrl ? { timestamper: createHttpTimestamper(signing.tsaUrl), timestampAuthority: new URL(signing.tsaUrl).host } : {}),
};

const uploads = { store: uploadStore, settings: uploadSettings(config) };

/** handler answers POST /v1/sign: the document signed PAdES B-B (B-T with a TSA), plain base64. */
export const handler = httpHandler(signRoute, async (req) => {
  const input = await uploadedDocument(req.body.document, req.principal, uploads);
  const signed = await signDocument({ ...req.body, document: input.document }, dependencies);
  await input.consumed();
  // base64Text: the megabytes go into the JSON answer without a second scan and copy (issue 16).
  return json(200, { document: { base64: base64Text(signed), contentType: "application/pdf" } });
});
