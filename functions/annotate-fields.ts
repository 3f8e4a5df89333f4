import { config } from "#config";
import { createSafeFetcher } from "#adapters/safe-fetcher.ts";
import { resolveDocument } from "#domain/document.ts";
import { describeFields } from "#domain/docx/annotate.ts";
import { annotateFieldsRoute } from "#http/contracts/annotate.ts";
import { httpHandler } from "#http/pipeline.ts";
import { json } from "#http/responses.ts";

const fetcher = createSafeFetcher({ allowHttp: config.fetch.allowHttp, timeoutMs: config.fetch.timeoutMs, maxRedirects: config.fetch.maxRedirects });
const { limits } = config;
const documentLimits = { maxDocumentBytes: limits.maxDocumentBytes, maxEntries: limits.maxDocxEntries, maxUncompressedBytes: limits.maxDocxUncompressedBytes };

/** handler answers POST /v1/annotate/fields: the content controls and {{placeholders}} a template offers. */
export const handler = httpHandler(annotateFieldsRoute, async (req) => {
  const document = await resolveDocument(req.body.document, ["docx"], { fetcher, limits: documentLimits });
  return json(200, describeFields(document.bytes, limits));
});
