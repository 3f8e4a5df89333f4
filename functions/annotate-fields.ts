import { resolveDocument } from "#domain/shared/document.ts";
import { describeFields } from "#domain/docx/annotate.ts";
import { listPdfForm } from "#domain/pdf-forms/read-form-file.ts";
import { annotateFieldsRoute } from "#http/contracts/annotate.ts";
import { json } from "#http/responses.ts";
import { uploadedDocument } from "#http/upload-input.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { uploadDeps } from "#wiring/uploads.ts";
import { safeFetcher } from "#wiring/fetch.ts";

/** makeAnnotateFieldsHandler builds POST /v1/annotate/fields on a container: a template's content controls and {{placeholders}}, or a PDF's form fields. */
export function makeAnnotateFieldsHandler(container: Container) {
  const { config } = container;
  const uploads = uploadDeps(container);
  return httpHandler(container, annotateFieldsRoute, async (req) => {
    const input = await uploadedDocument(req.body.document, req.principal, uploads);
    const document = await resolveDocument(input.document, ["docx", "pdf"], { fetcher: safeFetcher(container), limits: config.documentLimits });
    const fields =
      document.type === "pdf"
        ? await listPdfForm(document.bytes, { maxPages: config.limits.maxPdfPages })
        : await describeFields(document.bytes, config.limits);
    await input.consumed();
    return json(200, fields);
  });
}

/** handler answers POST /v1/annotate/fields with this process's container. */
export const handler = makeAnnotateFieldsHandler(processContainer());
