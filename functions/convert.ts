import { parse } from "node:path";
import "#wiring/start-at-init.ts";
import { readUpload } from "#domain/shared/upload.ts";
import { checkConvertedPages, conversionOptions } from "#domain/documents/conversion-options.ts";
import { targetMediaTypes } from "#domain/documents/formats.ts";
import { intake } from "#domain/documents/intake.ts";
import { convertRoute } from "#http/contracts/convert.ts";
import { jobTimeLimit } from "#http/jobs.ts";
import { parseMultipartFile } from "#http/multipart.ts";
import { attachmentDisposition, binary } from "#http/responses.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { uploadDeps } from "#wiring/uploads.ts";
import { converter, intakeLimits } from "#wiring/conversion.ts";

/** makeConvertHandler builds POST /v1/convert on a container: one uploaded file in, the converted file out. */
export function makeConvertHandler(container: Container) {
  const { config } = container;
  const limits = config.documentLimits;
  const uploads = uploadDeps(container);
  return httpHandler(container, convertRoute, async (req) => {
    const options = conversionOptions(req.query, config.limits);
    const uploaded = req.query.upload === undefined ? undefined : await readUpload(req.principal?.keyId ?? "", req.query.upload, uploads, "query.upload");
    const upload = uploaded
      ? { bytes: uploaded.bytes, fileName: "document" }
      : await parseMultipartFile(req.rawBody, req.headers["content-type"], { field: "file", maxBytes: limits.maxDocumentBytes });
    const { from, ...convertTo } = options;
    const document = await intake(upload.bytes, from, intakeLimits(config));
    // A job's run gives the conversion the time its invocation has left; a request keeps the converter's own limit.
    const output = await converter(container).convert(document, { ...convertTo, ...jobTimeLimit(req.jobDeadline) });
    if (options.maxPages !== undefined) await checkConvertedPages(output, options.maxPages);
    const { contentType, extension } = targetMediaTypes[options.to];
    const fileName = `${parse(upload.fileName).name || "document"}.${extension}`;
    if (uploaded) await uploads.store.remove(uploaded.key).catch(() => undefined);
    return binary(200, output, contentType, { "Content-Disposition": attachmentDisposition(fileName) });
  });
}

const container = processContainer();
// On Lambda, LibreOffice starts in the init phase (start-at-init.ts, above), so the first request
// finds it running, or still starting; init waits for it at most 8 s (Lambda allows 10 s of init).
if (container.config.runtime === "aws") await converter(container).startEarly(8_000);

/** handler answers POST /v1/convert with this process's container. */
export const handler = makeConvertHandler(container);
