import type { PDF } from "@libpdf/core";
import { SignetError } from "#domain/shared/errors.ts";

/**
 * checkMayChange refuses to change an encrypted PDF opened without owner access whose permissions
 * deny changes (the /P modify bit): what Acrobat and libpdf ask before a password is removed, and
 * what the tools ask before they write a changed or unencrypted copy. `change` says what the tool does.
 */
export function checkMayChange(pdf: PDF, change: string): void {
  if (!pdf.isEncrypted || pdf.hasOwnerAccess() || pdf.getPermissions().modify) return;
  throw new SignetError(
    "ENCRYPTED_DOCUMENT",
    `This PDF's permissions do not allow changes and this operation ${change}: send its owner password in document.password.`,
    { details: [{ field: "document.password", issue: "the owner password is needed" }] },
  );
}
