import { readUpload, type UploadSettings, type UploadStore } from "#domain/shared/upload.ts";
import type { Principal } from "#http/caller.ts";

/**
 * DocumentMember is a validated `document` member: base64, url or an upload reference, or the bytes
 * jsonBodyValidation already decoded from the request's `document.base64` (json-body.ts).
 */
export interface DocumentMember {
  base64?: string | undefined;
  bytes?: Buffer | undefined;
  url?: string | undefined;
  upload?: string | undefined;
}

/** Resolved is a document member ready for the domain, and what to do once the request succeeded. */
export interface ResolvedMember {
  document: { base64?: string | undefined; url?: string | undefined; bytes?: Buffer | undefined };
  /** Deletes a used upload; call after the operation succeeded (a failed request may be retried). */
  consumed(): Promise<void>;
}

/**
 * uploadedDocument turns `document.upload` into the uploaded bytes of the calling key (404 for
 * any other key's reference); base64 and url pass through unchanged. Without a principal (verify
 * has no API key) the reference alone is the capability.
 */
export async function uploadedDocument(
  member: DocumentMember,
  principal: Principal | undefined,
  deps: { store: UploadStore; settings: UploadSettings; now?: () => Date },
  field = "document.upload",
): Promise<ResolvedMember> {
  if (member.upload === undefined) return { document: member, consumed: async () => undefined };
  const { bytes, key } = await readUpload(
    principal?.keyId,
    member.upload,
    { store: deps.store, settings: deps.settings, now: deps.now ?? (() => new Date()) },
    field,
  );
  return {
    document: { bytes },
    consumed: async () => {
      // Best effort: the bucket's lifecycle rule removes what a failed delete leaves.
      await deps.store.remove(key).catch(() => undefined);
    },
  };
}
