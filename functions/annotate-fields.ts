import { config } from "#config";
import { safeFetcher } from "#adapters/safe-fetcher.ts";
import { resolveDocument } from "#domain/document.ts";
import { describeFields } from "#domain/docx/annotate.ts";
import { annotateFieldsRoute } from "#http/contracts/annotate.ts";
import { httpHandler } from "#http/pipeline.ts";
import { json } from "#http/responses.ts";

/** handler answers POST /v1/annotate/fields: the content controls and {{placeholders}} a template offers. */
export const handler = httpHandler(annotateFieldsRoute, async (req) => {
  const document = await resolveDocument(req.body.document, ["docx"], { fetcher: safeFetcher, limits: config.documentLimits });
  return json(200, await describeFields(document.bytes, config.limits));
});
