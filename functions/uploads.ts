import { grantUpload } from "#domain/shared/upload.ts";
import { uploadsRoute } from "#http/contracts/uploads.ts";
import { json } from "#http/responses.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { uploadDeps } from "#wiring/uploads.ts";

/** makeUploadsHandler builds POST /v1/uploads on a container: a presigned S3 POST into the caller's own upload folder. */
export function makeUploadsHandler(container: Container) {
  const uploads = uploadDeps(container);
  return httpHandler(container, uploadsRoute, async (req) => json(200, await grantUpload(req.principal!.keyId, uploads)));
}

/** handler answers POST /v1/uploads with this process's container. */
export const handler = makeUploadsHandler(processContainer());
