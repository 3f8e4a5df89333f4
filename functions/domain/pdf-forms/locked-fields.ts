// Filling a form whose signatures lock fields (FieldMDP, ISO 32000-1 12.7.4.5): a locked field's
// change invalidates the locking signature, so filling one is refused with the code every PDF tool
// answers for a change the signatures do not permit (409 WOULD_INVALIDATE_SIGNATURES).
import { lockingSignatures, type SignatureLock } from "#domain/pdf/field-lock.ts";
import { SignetError } from "#domain/shared/errors.ts";

/**
 * checkLockedFields refuses a fill of `names` that a signature's field lock forbids: a field a
 * lock covers, or any field after a lock whose /P is 1 (no change at all). The details name each
 * refused field and the signature locking it.
 */
export function checkLockedFields(locks: readonly SignatureLock[], names: readonly string[]): void {
  const frozen = locks.filter((item) => item.permission === 1).map((item) => item.field);
  const refused = names.flatMap((name) => {
    const locking = frozen.length > 0 ? frozen : lockingSignatures(locks, name);
    return locking.length > 0 ? [{ name, locking }] : [];
  });
  if (refused.length === 0) return;
  const signatures = [...new Set(refused.flatMap((item) => item.locking))].map((field) => `"${field}"`).join(", ");
  const fields = refused.map((item) => `"${item.name}"`).join(", ");
  const why = frozen.length > 0 ? "whose field lock permits no change after it (/Lock /P 1)" : "whose field lock (/Lock, FieldMDP) covers it";
  throw new SignetError(
    "WOULD_INVALIDATE_SIGNATURES",
    `Filling ${fields} would invalidate the signature ${signatures} ${why}. Leave the locked field${refused.length === 1 ? "" : "s"} out, or fill before signing.`,
    {
      details: refused.map((item) => ({
        field: `fields.${item.name}`,
        issue: `locked by signed signature field ${item.locking.map((field) => `"${field}"`).join(", ")}`,
      })),
    },
  );
}
