import { config } from "#config";
import { uploadStore } from "#adapters/s3-upload-store.ts";
import { grantUpload } from "#domain/shared/upload.ts";
import { uploadsRoute } from "#http/contracts/uploads.ts";
import { httpHandler } from "#wiring/http.ts";
import { uploadSettings } from "#http/upload-input.ts";
import { json } from "#http/responses.ts";

/** handler answers POST /v1/uploads: a presigned S3 POST into the caller's own upload folder. */
export const handler = httpHandler(uploadsRoute, async (req) => {
  const grant = await grantUpload(req.principal!.keyId, { store: uploadStore, settings: uploadSettings(config), now: () => new Date() });
  return json(200, grant);
});
