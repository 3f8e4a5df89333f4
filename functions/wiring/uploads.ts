/**
 * Wiring of uploads (POST /v1/uploads and the `document.upload` member of sign, annotate,
 * annotate-fields, convert and verify): the S3 store of a container and the bounds from config.
 */
import type { Config } from "#config";
import { createS3UploadStore, s3ClientFor } from "#adapters/s3-upload-store.ts";
import type { UploadSettings, UploadStore } from "#domain/shared/upload.ts";
import type { Container } from "#wiring/container.ts";

/** UploadDeps are what granting and reading uploads need. */
export interface UploadDeps {
  store: UploadStore;
  settings: UploadSettings;
  now: () => Date;
}

/** uploadSettings derives the upload bounds from the configuration: the document limit caps an upload. */
function uploadSettings(config: Pick<Config, "limits" | "uploads">): UploadSettings {
  return {
    maxBytes: config.limits.maxDocumentBytes,
    postExpirySeconds: config.uploads.postExpirySeconds,
    referenceTtlSeconds: config.uploads.referenceTtlSeconds,
  };
}

/** createUploadStore is the upload store of a config (SIGNET_UPLOADS_BUCKET, SIGNET_S3_ENDPOINT locally). */
function createUploadStore(config: Config): UploadStore {
  return createS3UploadStore({
    bucket: config.uploads.bucket,
    client: s3ClientFor({ region: config.region, credentials: config.credentials, endpoint: config.uploads.s3Endpoint }),
  });
}

/** uploadDeps are the container's store, the bounds (the document limit caps an upload) and the clock. */
export function uploadDeps(container: Container): UploadDeps {
  return { store: container.part("uploadStore", (own) => createUploadStore(own.config)), settings: uploadSettings(container.config), now: () => new Date() };
}
