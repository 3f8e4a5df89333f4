// Signing with field locks (FieldMDP, ISO 32000-1 12.8.2.4): a signature into a field whose /Lock
// locks fields records the lock as a FieldMDP transform in its /Reference; a signature whose field
// an earlier signature locks, or after a lock whose /P forbids every change, is refused.
import { PdfArray, PdfDict, PdfName, type PdfObject } from "@libpdf/core";
import { readForm } from "#domain/pdf/acroform.ts";
import type { DocMdpPermission } from "#domain/pdf/docmdp.ts";
import { type FieldLock, fieldMdpTransformParams, lockingSignatures, readLock, type SignatureLock, signatureLocks } from "#domain/pdf/field-lock.ts";
import type { PdfFile } from "#domain/pdf/pdf-file.ts";
import { SignetError } from "#domain/shared/errors.ts";

/** documentLocks lists the signed fields of the document's latest revision whose signatures lock fields. */
export function documentLocks(file: PdfFile): SignatureLock[] {
  return signatureLocks(file.latest, readForm(file.latest, file.pageTree));
}

/** fieldLockOf reads the /Lock of the existing field `name` (undefined when it has none, or there is no such field). */
export function fieldLockOf(file: PdfFile, name: string): FieldLock | undefined {
  const field = readForm(file.latest, file.pageTree).fields.find((candidate) => candidate.name === name);
  return field ? readLock(file.latest, field.dict.get("Lock")) : undefined;
}

/**
 * checkLocksAllowSignature refuses (409 WOULD_INVALIDATE_SIGNATURES) a signature into the field
 * `name` when an earlier signature locks that field (pyHanko and verify class the new /V of a
 * locked field "other"), or when a lock's /P is 1 (no change at all after that signature).
 */
export function checkLocksAllowSignature(locks: readonly SignatureLock[], name: string): void {
  const frozen = locks.filter((item) => item.permission === 1).map((item) => item.field);
  const locking = frozen.length > 0 ? frozen : lockingSignatures(locks, name);
  if (locking.length === 0) return;
  const list = locking.map((field) => `"${field}"`).join(", ");
  const why =
    frozen.length > 0
      ? `its lock permits no change after it (/Lock /P 1)`
      : `its field lock (/Lock, FieldMDP) covers the signature field "${name}" this signature would fill`;
  throw new SignetError(
    "WOULD_INVALIDATE_SIGNATURES",
    `Signing would invalidate the signature${locking.length === 1 ? "" : "s"} ${list}: ${why}. Sign into a field the lock leaves open (signatureField.name), or sign the document before it was locked.`,
    { details: locking.map((field) => ({ field: "signatureField", issue: `locked by signed signature field "${field}"` })) },
  );
}

/** lockedCertification is the certification permission when signing into a field whose lock sets /P: the stricter of the two (pyHanko's rule). */
export function lockedCertification(certify: DocMdpPermission | undefined, lock: FieldLock | undefined): DocMdpPermission | undefined {
  if (certify === undefined || lock?.permission === undefined) return certify;
  return Math.min(certify, lock.permission) as DocMdpPermission;
}

/**
 * signatureReferences is the /Reference entry of a signature: the certification's DocMDP reference
 * (when certifying) and, for a field with a /Lock, a FieldMDP signature reference dictionary
 * whose parameters repeat the lock (with its /P, as Acrobat and pyHanko write it) and whose /Data
 * is the catalog (ISO 32000-1 table 253: required for FieldMDP).
 */
export function signatureReferences(docMdp: PdfArray | undefined, lock: FieldLock | undefined, catalog: PdfObject | undefined): Record<string, PdfObject> {
  const references = docMdp ? docMdp.toArray() : [];
  if (lock) {
    const params = PdfDict.of(fieldMdpTransformParams(lock));
    references.push(
      PdfDict.of({ Type: PdfName.of("SigRef"), TransformMethod: PdfName.of("FieldMDP"), TransformParams: params, ...(catalog ? { Data: catalog } : {}) }),
    );
  }
  return references.length > 0 ? { Reference: new PdfArray(references) } : {};
}
