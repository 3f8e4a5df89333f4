/**
 * Wiring of uploads (POST /v1/uploads and the `document.upload` member of sign, annotate,
 * annotate-fields, convert and verify): the S3 store of this container and the bounds from config.
 */
import { config } from "#config";
import { createS3UploadStore, s3ClientFor } from "#adapters/s3-upload-store.ts";
import type { UploadSettings, UploadStore } from "#domain/shared/upload.ts";
import { uploadSettings } from "#http/upload-input.ts";

/** UploadDeps are what granting and reading uploads need. */
export interface UploadDeps {
  store: UploadStore;
  settings: UploadSettings;
  now: () => Date;
}

let store: UploadStore | undefined;

/** uploadStore is this container's upload store (SIGNET_UPLOADS_BUCKET, SIGNET_S3_ENDPOINT locally), created on first use. */
function uploadStore(): UploadStore {
  store ??= createS3UploadStore({ bucket: config.uploads.bucket, client: s3ClientFor({ region: config.region, endpoint: config.uploads.s3Endpoint }) });
  return store;
}

/** uploadDeps are the store, the bounds (the document limit caps an upload) and the clock. */
export function uploadDeps(): UploadDeps {
  return { store: uploadStore(), settings: uploadSettings(config), now: () => new Date() };
}
