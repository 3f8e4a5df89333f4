import { createHash, randomBytes } from "node:crypto";
import { SignetError } from "#domain/shared/errors.ts";
import { formatBytes } from "#domain/shared/sizes.ts";

/**
 * Uploads carry documents too large for a request body on AWS (API Gateway and Lambda cap an
 * invoke at 6 MB, base64 included): the caller asks POST /v1/uploads for a presigned S3 POST,
 * sends the file straight to S3, then names it by reference in sign, annotate, verify or convert.
 */

/** PresignedPost is where and how a client uploads one object: an HTML-form style POST. */
export interface PresignedPost {
  url: string;
  fields: Record<string, string>;
}

/** UploadStore is the object store holding uploads (S3 on AWS, the S3 stand-in locally). */
export interface UploadStore {
  /** presignPost allows one POST of at most maxBytes to exactly `key`, until expiresInSeconds pass. */
  presignPost(input: { key: string; maxBytes: number; expiresInSeconds: number }): Promise<PresignedPost>;
  /** read answers the object's bytes, undefined when there is none; "too-large" above maxBytes (without reading it all). */
  read(key: string, maxBytes: number): Promise<Buffer | "too-large" | undefined>;
  remove(key: string): Promise<void>;
  /** write keeps `bytes` at exactly `key` (a document Signet made for a key: split's parts). */
  write(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
}

/** UploadSettings bound uploads: size, how long the POST is allowed, how long a reference may be used. */
export interface UploadSettings {
  maxBytes: number;
  /** Seconds the presigned POST is valid. */
  postExpirySeconds: number;
  /** Seconds after issue a reference may be used (the bucket's lifecycle removes leftovers later). */
  referenceTtlSeconds: number;
}

/** UploadGrant is the answer of POST /v1/uploads. */
export interface UploadGrant {
  upload: string;
  url: string;
  fields: Record<string, string>;
  expiresAt: string;
  maxBytes: number;
}

/**
 * A reference: "upl_", the issue time (seconds, base 36), the owner tag (the first 16 hex digits
 * of the SHA-256 of the API key's id), 128 random bits (base64url), joined by "_". The object
 * lives at uploads/<tag>/<reference>.
 */
export const UPLOAD_REFERENCE = /^upl_([0-9a-z]{1,10})_([0-9a-f]{16})_([A-Za-z0-9_-]{22})$/;

/** ownerTag names one API key's upload folder; hashed, so neither the folder nor the reference reveals the key id. */
export function ownerTag(keyId: string): string {
  return createHash("sha256").update(keyId).digest("hex").slice(0, 16);
}

/** uploadObjectKey is where the object of a well-formed reference lives. */
export function uploadObjectKey(reference: string): string {
  const match = UPLOAD_REFERENCE.exec(reference);
  if (!match) throw new Error("not an upload reference");
  return `uploads/${match[2]}/${reference}`;
}

/** newUploadReference makes a fresh reference of a key, issued at `now`. */
export function newUploadReference(keyId: string, now: Date, random: (size: number) => Buffer = randomBytes): string {
  return `upl_${Math.floor(now.getTime() / 1000).toString(36)}_${ownerTag(keyId)}_${random(16).toString("base64url")}`;
}

/**
 * grantUpload answers POST /v1/uploads for one API key: a fresh reference and a presigned POST
 * restricted to that key's folder, the document size limit and a short expiry.
 */
export async function grantUpload(keyId: string, deps: { store: UploadStore; settings: UploadSettings; now: () => Date }): Promise<UploadGrant> {
  const now = deps.now();
  const upload = newUploadReference(keyId, now);
  const { maxBytes, postExpirySeconds } = deps.settings;
  const post = await deps.store.presignPost({ key: uploadObjectKey(upload), maxBytes, expiresInSeconds: postExpirySeconds });
  return { upload, ...post, expiresAt: new Date(now.getTime() + postExpirySeconds * 1000).toISOString(), maxBytes };
}

/** StoredUpload is a document Signet kept as an upload of a key: its reference, size and the end of its use. */
export interface StoredUpload {
  upload: string;
  bytes: number;
  expiresAt: string;
}

/** UPLOAD_WRITES_AT_ONCE bounds the writes in flight while storing several documents. */
const UPLOAD_WRITES_AT_ONCE = 8;

/**
 * storeUploads keeps documents as uploads of one key (split with output "uploads"): each under a
 * fresh reference in that key's folder, usable as `document.upload` by that key alone, until the
 * reference's TTL passes, exactly as an uploaded file. All or none: a document above the upload
 * limit refuses the whole before anything is written, and a failed write deletes what was written.
 */
export async function storeUploads(
  keyId: string,
  documents: readonly Uint8Array[],
  deps: { store: UploadStore; settings: UploadSettings; now: () => Date },
): Promise<StoredUpload[]> {
  const { maxBytes, referenceTtlSeconds } = deps.settings;
  const tooLarge = documents.findIndex((document) => document.length > maxBytes);
  if (tooLarge >= 0) {
    throw new SignetError(
      "PAYLOAD_TOO_LARGE",
      `Part ${tooLarge + 1} is ${formatBytes(documents[tooLarge]!.length)}, above the ${formatBytes(maxBytes)} an upload may hold; cut it into smaller parts or ask for the zip.`,
      { details: [{ field: "output", issue: `part ${tooLarge + 1} is over the upload limit` }] },
    );
  }
  const now = deps.now();
  // readUpload counts the TTL from the issue time in the reference, in whole seconds.
  const expiresAt = new Date((Math.floor(now.getTime() / 1000) + referenceTtlSeconds) * 1000).toISOString();
  const stored = documents.map((document) => ({ upload: newUploadReference(keyId, now), bytes: document.length, expiresAt }));
  const written: string[] = [];
  try {
    for (let from = 0; from < stored.length; from += UPLOAD_WRITES_AT_ONCE) {
      const batch = stored.slice(from, from + UPLOAD_WRITES_AT_ONCE);
      const results = await Promise.allSettled(
        batch.map(async ({ upload }, at) => {
          await deps.store.write(uploadObjectKey(upload), documents[from + at]!, "application/pdf");
          written.push(upload);
        }),
      );
      const failed = results.find((result) => result.status === "rejected");
      if (failed) throw failed.reason;
    }
  } catch (error) {
    // Best effort: the bucket's lifecycle rule removes what a failed delete leaves.
    await Promise.all(written.map((upload) => deps.store.remove(uploadObjectKey(upload)).catch(() => undefined)));
    if (error instanceof SignetError) throw error;
    throw new SignetError("SERVICE_UNAVAILABLE", "The parts could not be stored as uploads right now; retry in a moment.", { cause: error });
  }
  return stored;
}

/**
 * readUpload resolves a reference for the key that presents it: malformed is 400; expired,
 * unknown (never uploaded, already used) or another key's is 404. `keyId` is undefined only on
 * routes without an API key (verify): there the 128 random bits of the reference are the
 * capability, as a presigned URL's signature is.
 */
export async function readUpload(
  keyId: string | undefined,
  reference: string,
  deps: { store: UploadStore; settings: UploadSettings; now: () => Date },
  field = "document.upload",
): Promise<{ bytes: Buffer; key: string }> {
  const match = UPLOAD_REFERENCE.exec(reference);
  if (!match) {
    throw new SignetError("VALIDATION_ERROR", `${field} is not an upload reference; use the "upload" value the upload request answered.`, {
      next: "upload",
      details: [{ field, issue: "malformed upload reference" }],
    });
  }
  const issuedAt = parseInt(match[1]!, 36) * 1000;
  const usableUntil = issuedAt + deps.settings.referenceTtlSeconds * 1000;
  if (deps.now().getTime() > usableUntil) {
    throw new SignetError("NOT_FOUND", `The upload ${reference} expired at ${new Date(usableUntil).toISOString()}; request a new upload and upload again.`, {
      next: "upload",
      details: [{ field, issue: "expired" }],
    });
  }
  if (keyId !== undefined && match[2] !== ownerTag(keyId)) throw unknownUpload(reference, field);
  const key = uploadObjectKey(reference);
  const bytes = await deps.store.read(key, deps.settings.maxBytes);
  if (bytes === "too-large")
    throw new SignetError("PAYLOAD_TOO_LARGE", `The uploaded document is larger than the ${formatBytes(deps.settings.maxBytes)} limit.`);
  if (bytes === undefined) throw unknownUpload(reference, field);
  return { bytes, key };
}

function unknownUpload(reference: string, field: string): SignetError {
  return new SignetError(
    "NOT_FOUND",
    `No upload ${reference} exists for this API key: the file was not uploaded (yet), was already used by a successful request, or belongs to another key.`,
    { details: [{ field, issue: "unknown upload" }] },
  );
}
