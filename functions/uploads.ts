import { grantUpload } from "#domain/shared/upload.ts";
import { uploadsRoute } from "#http/contracts/uploads.ts";
import { httpHandler } from "#wiring/http.ts";
import { json } from "#http/responses.ts";
import { uploadDeps } from "#wiring/uploads.ts";

const uploads = uploadDeps();

/** handler answers POST /v1/uploads: a presigned S3 POST into the caller's own upload folder. */
export const handler = httpHandler(uploadsRoute, async (req) => {
  const grant = await grantUpload(req.principal!.keyId, uploads);
  return json(200, grant);
});
