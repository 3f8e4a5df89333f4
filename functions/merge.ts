import { mergeDocuments } from "#domain/pdf-tools/merge.ts";
import { mergeRoute } from "#http/contracts/pdf-tools.ts";
import { pdfToolAnswer } from "#http/pdf-tool-answer.ts";
import { uploadedDocument } from "#http/upload-input.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { pdfToolDependencies } from "#wiring/pdf-tools.ts";
import { uploadDeps } from "#wiring/uploads.ts";

/** makeMergeHandler builds POST /v1/merge on a container: several PDFs (or DOCX) in, one PDF out (base64 JSON, as sign answers). */
export function makeMergeHandler(container: Container) {
  const dependencies = pdfToolDependencies(container);
  const uploads = uploadDeps(container);
  return httpHandler(container, mergeRoute, async (req) => {
    const inputs: Awaited<ReturnType<typeof uploadedDocument>>[] = [];
    for (const [index, item] of req.body.documents.entries()) {
      inputs.push(await uploadedDocument(item.document, req.principal, uploads, `documents.${index}.document.upload`));
    }
    const items = req.body.documents.map((item, index) => ({ ...item, document: inputs[index]!.document }));
    const result = await mergeDocuments(items, req.body, dependencies);
    for (const input of inputs) await input.consumed();
    return pdfToolAnswer(result);
  });
}

/** handler answers POST /v1/merge with this process's container. */
export const handler = makeMergeHandler(processContainer());
