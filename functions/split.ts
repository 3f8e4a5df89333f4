import { droppedSignaturesHeader } from "#domain/pdf-tools/signatures.ts";
import { openSource, resolvePdfInput } from "#domain/pdf-tools/source.ts";
import { splitDocument } from "#domain/pdf-tools/split.ts";
import { storeUploads } from "#domain/shared/upload.ts";
import { writeZip } from "#domain/shared/zip-container.ts";
import { splitRoute } from "#http/contracts/pdf-tools.ts";
import { splitUploadsAnswer } from "#http/pdf-tool-answer.ts";
import { attachmentDisposition, binary } from "#http/responses.ts";
import { uploadedDocument } from "#http/upload-input.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { pdfToolDependencies } from "#wiring/pdf-tools.ts";
import { uploadDeps } from "#wiring/uploads.ts";

/** makeSplitHandler builds POST /v1/split on a container: one PDF in, a zip of its parts out (or, with output "uploads", the parts kept as uploads of the caller). */
export function makeSplitHandler(container: Container) {
  const dependencies = pdfToolDependencies(container);
  const uploads = uploadDeps(container);
  return httpHandler(container, splitRoute, async (req) => {
    const input = await uploadedDocument(req.body.document, req.principal, uploads);
    const { bytes } = await resolvePdfInput(input.document, dependencies);
    const source = await openSource(bytes, {
      field: "document",
      dropSignatures: req.body.dropSignatures,
      maxPages: dependencies.tools.maxPdfPages,
      password: input.document.password,
    });
    const request = req.body.every === undefined ? { ranges: req.body.ranges ?? [] } : { every: req.body.every };
    const parts = await splitDocument(source, request, dependencies.tools);
    if (req.body.output === "uploads") {
      const stored = await storeUploads(
        req.principal!.keyId,
        parts.map((part) => part.pdf),
        uploads,
      );
      await input.consumed();
      return splitUploadsAnswer(parts, stored, source.dropped);
    }
    const zip = await writeZip(parts.map((part, index) => ({ name: `part-${String(index + 1).padStart(3, "0")}.pdf`, data: part.pdf })));
    await input.consumed();
    return binary(200, zip, "application/zip", { "Content-Disposition": attachmentDisposition("parts.zip"), ...droppedSignaturesHeader(source.dropped) });
  });
}

/** handler answers POST /v1/split with this process's container. */
export const handler = makeSplitHandler(processContainer());
