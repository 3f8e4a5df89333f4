import { config } from "#config";
import { fontFiles } from "#adapters/bundled-fonts.ts";
import { createHttpTimestamper } from "#adapters/http-timestamper.ts";
import { identityStore } from "#adapters/identity.ts";
import { converter } from "#adapters/libreoffice/converter.ts";
import { safeFetcher } from "#adapters/safe-fetcher.ts";
import { signDocument, type SignDependencies } from "#domain/sign-document.ts";
import { signRoute } from "#http/contracts/sign.ts";
import { httpHandler } from "#http/pipeline.ts";
import { json } from "#http/responses.ts";

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

/** handler answers POST /v1/sign: the document signed PAdES B-B (B-T with a TSA), plain base64. */
export const handler = httpHandler(signRoute, async (req) => {
  const signed = await signDocument(req.body, dependencies);
  return json(200, { document: { base64: signed.toString("base64"), contentType: "application/pdf" } });
});
