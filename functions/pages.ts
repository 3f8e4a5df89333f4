import { applyPageOperations } from "#domain/pdf-tools/page-operations.ts";
import { openSource, resolvePdfInput } from "#domain/pdf-tools/source.ts";
import { pagesRoute } from "#http/contracts/pdf-tools.ts";
import { pdfToolAnswer } from "#http/pdf-tool-answer.ts";
import { uploadedDocument } from "#http/upload-input.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { pdfToolDependencies } from "#wiring/pdf-tools.ts";
import { uploadDeps } from "#wiring/uploads.ts";

/** makePagesHandler builds POST /v1/pages on a container: select, reorder, rotate and delete pages, one PDF out. */
export function makePagesHandler(container: Container) {
  const dependencies = pdfToolDependencies(container);
  const uploads = uploadDeps(container);
  return httpHandler(container, pagesRoute, async (req) => {
    const input = await uploadedDocument(req.body.document, req.principal, uploads);
    const { bytes } = await resolvePdfInput(input.document, dependencies);
    const source = await openSource(bytes, {
      field: "document",
      dropSignatures: req.body.dropSignatures,
      maxPages: dependencies.tools.maxPdfPages,
      password: input.document.password,
    });
    const result = await applyPageOperations(source, req.body.operations, dependencies.tools);
    await input.consumed();
    return pdfToolAnswer(result);
  });
}

/** handler answers POST /v1/pages with this process's container. */
export const handler = makePagesHandler(processContainer());
