// What `certify` and `signatureField` of a sign request become for the signer: the DocMDP
// permission, the field to sign into and its appearance (with the picture loaded as annotate loads
// pictures), /Reason and /Location.
import type { PDF, PdfRef } from "@libpdf/core";
import { formatUtc } from "#domain/certificate-page/audit-certificate.ts";
import type { DocMdpPermission } from "#domain/pdf/docmdp.ts";
import type { FieldLock } from "#domain/pdf/field-lock.ts";
import type { FontFiles } from "#domain/pdf-text/fonts.ts";
import { type ImageLoadDeps, loadImage } from "#domain/pictures/load.ts";
import { SignetError } from "#domain/shared/errors.ts";
import type { PadesSignOptions } from "#domain/signing/pades-signer.ts";
import { type AppearanceContent, drawSignatureAppearance } from "#domain/signing/signature-appearance.ts";
import type { AppearanceBox, Rect, SignatureFieldRequest } from "#domain/signing/signature-field.ts";

/** SignatureFieldInput is a sign request's `signatureField` (docs/api.md, "Visible signatures"). */
export interface SignatureFieldInput {
  name?: string | undefined;
  page?: number | undefined;
  rect?: Rect | undefined;
  reason?: string | undefined;
  location?: string | undefined;
  /** A PNG, JPEG, WebP or SVG data URI or https URL. */
  image?: string | undefined;
  /** A new field's /Lock (FieldMDP). */
  lock?: { action: FieldLock["action"]; fields?: string[] | undefined } | undefined;
}

/** SignatureRequest is the part of a sign request this file reads. */
export interface SignatureRequest {
  signer: { name: string };
  certify?: { permissions: DocMdpPermission } | undefined;
  signatureField?: SignatureFieldInput | undefined;
}

/** fieldRequest checks that the input names a field, or places one (both page and rect). */
function fieldRequest(input: SignatureFieldInput): SignatureFieldRequest {
  const { name, page, rect, lock } = input;
  if (page !== undefined && rect !== undefined) return { name, page, rect, ...(lock ? { lock: { action: lock.action, fields: lock.fields ?? [] } } : {}) };
  if (page === undefined && rect === undefined && name !== undefined) return { name };
  throw new SignetError("VALIDATION_ERROR", "signatureField needs the name of an existing signature field, or page and rect for a new one.", {
    details: [{ field: "signatureField", issue: "give name, or page and rect" }],
  });
}

/** signaturePicture loads the picture as annotate does (same limits) and keeps what a PDF embeds: PNG or JPEG (a WebP or SVG arrives as PNG). */
async function signaturePicture(value: string, images: ImageLoadDeps | undefined): Promise<AppearanceContent["image"]> {
  if (!images) throw new Error("signatureOptions: a signature picture needs the image loading dependencies");
  const image = await loadImage(value, "signatureField.image", images);
  if (image.info.format !== "png" && image.info.format !== "jpeg") {
    throw new SignetError("INVALID_IMAGE", `signatureField.image is a ${image.info.format.toUpperCase()}; give a PNG, JPEG, WebP or SVG picture.`, {
      details: [{ field: "signatureField.image", issue: `${image.info.format} is not taken for a signature picture` }],
    });
  }
  return { bytes: image.bytes, width: image.info.width, height: image.info.height };
}

/**
 * signatureOptions turns `certify` and `signatureField` into signer options: nothing without them
 * (an invisible approval signature, as before); the picture is loaded before anything is signed.
 */
export async function signatureOptions(
  input: SignatureRequest,
  deps: { fonts: () => FontFiles; images?: ImageLoadDeps | undefined },
  signingTime: Date,
): Promise<Pick<PadesSignOptions, "certify" | "field" | "location"> & { reason?: string }> {
  const certify = input.certify ? { certify: input.certify.permissions } : {};
  const field = input.signatureField;
  if (!field) return certify;
  const request = fieldRequest(field);
  const content: AppearanceContent = {
    name: input.signer.name,
    date: formatUtc(signingTime),
    reason: field.reason,
    location: field.location,
    image: field.image ? await signaturePicture(field.image, deps.images) : undefined,
  };
  const appearance = (pdf: PDF, box: AppearanceBox): PdfRef => drawSignatureAppearance(pdf, deps.fonts(), box, content);
  return {
    ...certify,
    field: { request, appearance },
    ...(field.reason ? { reason: field.reason } : {}),
    ...(field.location ? { location: field.location } : {}),
  };
}
