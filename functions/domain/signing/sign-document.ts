import { createHash } from "node:crypto";
import { drawAuditCertificate, formatUtc, sortEvents, type AuditEvent } from "#domain/certificate-page/audit-certificate.ts";
import type { PDF } from "@libpdf/core";
import type { Timestamper } from "#domain/signing/cades-signature.ts";
import type { Converter } from "#domain/documents/converter.ts";
import { type IntakeLimits, intake } from "#domain/documents/intake.ts";
import { resolveDocument, type ResolvedDocument } from "#domain/shared/document.ts";
import { SignetError } from "#domain/shared/errors.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { AUDIT_RECORD_KEY, type ExistingPages, hasSignatures, type InputFacts, signPdfWithFacts } from "#domain/signing/pades-signer.ts";
import type { FontFiles } from "#domain/pdf-text/fonts.ts";
import type { FieldValue } from "#domain/pdf-forms/field-values.ts";
import { fillPdfForm } from "#domain/pdf-forms/fill-form.ts";
import { separateWidgetsBeforeSigning } from "#domain/pdf-forms/separate-widgets.ts";
import { listSignatures, verifySignatures } from "#domain/verification/signature-verifier.ts";
import type { VerifyReport } from "#domain/verification/verify-report.ts";
import type { PdfFile } from "#domain/pdf/pdf-file.ts";
import { VerifyBudget } from "#domain/pdf/verify-limits.ts";
import { describeKey, type SigningIdentity, type SigningIdentityStore } from "#domain/signing/signing-identity.ts";
import { addLongTermValidation, resolveLevel, type SignatureLevel } from "#domain/signing/ltv.ts";
import { type SignatureRequest, signatureOptions } from "#domain/signing/visible-signature.ts";
import type { ImageLoadDeps } from "#domain/pictures/load.ts";

/** SignInput is a validated sign request (docs/api.md, "Sign and verify"). */
export interface SignInput {
  document: { base64?: string | undefined; url?: string | undefined; bytes?: Buffer | undefined; password?: string | undefined };
  signer: { email: string; name: string; ip?: string | undefined; userAgent?: string | undefined };
  auditTrail: AuditEvent[];
  eventId?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  certificate?: { enabled: boolean } | undefined;
  /** The PAdES level; default B-T with a timestamper, else B-B. */
  level?: SignatureLevel | undefined;
  /** A PDF form's fields to fill before signing (pdf-forms/fill-form.ts), with its flatten and dropXfa. */
  fields?: FieldValue[] | undefined;
  flatten?: boolean | string[] | undefined;
  dropXfa?: boolean | undefined;
  /** A certification signature (DocMDP) with this permission. */
  certify?: SignatureRequest["certify"];
  /** Sign into this signature field (existing, or new on a page) with a visible appearance. */
  signatureField?: SignatureRequest["signatureField"];
}

/** SignDependencies are the outside parts signing uses. */
export interface SignDependencies {
  fetcher: Fetcher;
  converter: Converter;
  identities: SigningIdentityStore;
  fonts: () => FontFiles;
  /** Loads signatureField.image (annotate's picture limits); a request with a picture needs it. */
  images?: ImageLoadDeps | undefined;
  limits: IntakeLimits & { maxAuditEvents: number; maxMetadataBytes: number };
  /** Present when a TSA is configured: the signature gets a B-T timestamp. */
  timestamper?: Timestamper | undefined;
  /** Shown on the certificate page for B-T signatures (the TSA's host). */
  timestampAuthority?: string | undefined;
  /** Fetches OCSP responses and CRLs for B-LT and B-LTA (the safe fetcher's limits). */
  revocationFetcher?: Fetcher | undefined;
  now?: () => Date;
}

/** EarlierSignatureRecord is a signature the document held when Signet signed it, as the audit record lists it. */
interface EarlierSignatureRecord {
  /** The signature field's name. */
  field: string;
  /** /Name, else the signing certificate's subject common name. */
  signer: string | null;
  /** The time the signature claims (/M), ISO 8601; not proof of time. */
  claimedTime: string | null;
  /** The time of its RFC 3161 timestamp, when one verified. */
  timestampTime?: string | undefined;
  /** A document timestamp (B-LTA) rather than a signer's signature. */
  documentTimestamp: boolean;
  /**
   * As POST /v1/verify judged it just before this signing: its bytes unchanged and every later
   * update one it permits (trust in its certificate is not judged here).
   */
  intact: boolean;
}

/**
 * earlierSignaturesOf lists the signatures a document already holds with the verdict of the
 * verifier (no trust anchors: integrity and permitted changes only). A document without
 * signatures costs nothing; one with them costs one verification (digests over the signed
 * ranges, the revision analysis).
 */
async function earlierSignaturesOf(file: PdfFile): Promise<EarlierSignatureRecord[]> {
  if (!hasSignatures(file)) return [];
  let report: VerifyReport;
  try {
    // The verification is new work on the file read at loading: it gets its own time budget.
    file.budget = new VerifyBudget(file.limits.timeBudgetMs);
    report = await verifySignatures(file, { anchors: [] });
  } catch {
    // More signatures than the verifier takes: list them without a verdict.
    return listSignatures(file.latest).map((earlier, index) => ({
      field: `#${index + 1}`,
      signer: earlier.signer || null,
      claimedTime: earlier.signedAt?.toISOString() ?? null,
      documentTimestamp: false,
      intact: false,
    }));
  }
  // Verify names no signer of a broken signature; the record keeps what its dictionary claims, marked not intact.
  const claimed = listSignatures(file.latest);
  return report.signatures.map((signature, index) => ({
    field: signature.field,
    signer: signature.signerName ?? (claimed[index]?.signer || /(?:^|,\s*)CN=([^,\n]+)/.exec(signature.certificateSubject)?.[1]) ?? null,
    claimedTime: signature.signingTime ?? claimed[index]?.signedAt?.toISOString() ?? null,
    ...(signature.timestamp?.time ? { timestampTime: signature.timestamp.time } : {}),
    documentTimestamp: signature.documentTimestamp,
    intact: signature.integrity === "ok" && signature.changesPermitted,
  }));
}

/** checkSignInput enforces the limits and rules the schema cannot express. */
function checkSignInput(input: SignInput, limits: SignDependencies["limits"]): void {
  if (input.auditTrail.length > limits.maxAuditEvents) {
    throw new SignetError("PAYLOAD_TOO_LARGE", `The audit trail has ${input.auditTrail.length} events; the limit is ${limits.maxAuditEvents}.`, {
      details: [{ field: "auditTrail", issue: `at most ${limits.maxAuditEvents} events` }],
    });
  }
  if (input.metadata !== undefined) {
    const size = Buffer.byteLength(JSON.stringify(input.metadata), "utf8");
    if (size > limits.maxMetadataBytes) {
      throw new SignetError("PAYLOAD_TOO_LARGE", `metadata is ${size} bytes as JSON; the limit is ${limits.maxMetadataBytes}.`, {
        details: [{ field: "metadata", issue: `at most ${limits.maxMetadataBytes} bytes as JSON` }],
      });
    }
  }
  if (!input.auditTrail.some((event) => event.type === "submit")) {
    throw new SignetError("MISSING_SUBMIT_EVENT", 'The audit trail has no "submit" event; add the event recording when the signer submitted.', {
      details: [{ field: "auditTrail", issue: "needs at least one event of type submit" }],
    });
  }
}

/** SignNotices are what the answer says beyond the signed PDF, as response headers (name to value). */
export type SignNotices = Record<string, string>;

/** INPUT_REWRITTEN_HEADER names what Signet rewrote before signing (docs/api.md). */
const INPUT_REWRITTEN_HEADER = "Signet-Input-Rewritten";
/** NOTICE_HEADER carries what a caller should know about the signed file (docs/api.md). */
const NOTICE_HEADER = "Signet-Notice";

/** noticesOf turns what signing did with the input into response headers. */
function noticesOf(facts: InputFacts): SignNotices {
  const notices: string[] = [];
  if (facts.hybridKept) {
    notices.push("hybrid-reference file kept as it is (it holds signatures): strict validators such as pyHanko will not evaluate its signatures");
  }
  if (facts.certificatePageLeftOut) notices.push(`certificate page left out (${facts.certificatePageLeftOut}); the audit trail is recorded in the signature`);
  return {
    ...(facts.rewritten ? { [INPUT_REWRITTEN_HEADER]: facts.rewritten.reason } : {}),
    ...(notices.length > 0 ? { [NOTICE_HEADER]: notices.join("; ") } : {}),
  };
}

/** signDocument runs POST /v1/sign (see signDocumentWithNotices) and returns the signed PDF. */
export async function signDocument(input: SignInput, dependencies: SignDependencies): Promise<Buffer> {
  return (await signDocumentWithNotices(input, dependencies)).signed;
}

/**
 * signDocumentWithNotices runs POST /v1/sign: checks the request, resolves the document (DOCX is converted
 * to PDF first), appends the audit trail certificate unless disabled (on an already-signed
 * document: a compact stamp in the signature widget instead), records the complete audit trail in
 * the signature dictionary, and signs PAdES B-B (B-T with a timestamper) as an incremental update.
 * An unsigned PDF that needs repair, or a hybrid-reference one, is rewritten once and the rewrite
 * signed (both SHA-256s in the audit record). Returns the signed PDF and the notices for the answer.
 */
export async function signDocumentWithNotices(input: SignInput, dependencies: SignDependencies): Promise<{ signed: Buffer; notices: SignNotices }> {
  checkSignInput(input, dependencies.limits);
  const level = resolveLevel(input.level, dependencies.timestamper !== undefined);
  // B-B: no timestamp even when a TSA is configured.
  const deps = level === "B-B" ? { ...dependencies, timestamper: undefined } : dependencies;
  const { document, pdfBytes } = await resolvePdf(input, deps);
  const identity = await loadIdentity(deps, level);
  const service = {
    subject: identity.certificate.subject.replace(/\n/g, ", "),
    fingerprint: identity.certificate.fingerprint256,
    algorithm: describeKey(identity),
  };
  const context: SignContext = { input, deps, level, document, pdfBytes, signingTime: (deps.now ?? (() => new Date()))(), service };
  const { signer } = input;
  const withCertificate = input.certificate?.enabled ?? true;
  const { signed, facts } = await signPdfWithFacts(pdfBytes, {
    identity,
    rewriteUnsigned: true,
    maxPages: deps.limits.maxPdfPages,
    password: input.document.password,
    // The document's SHA-256 (for the audit record) goes on over the update: the input is hashed once.
    ...(pdfBytes === document.bytes ? { inputHash: { of: pdfBytes, hash: document.sha256State } } : {}),
    signingTime: context.signingTime,
    signerName: signer.name,
    reason: `Signed by ${signer.name} <${signer.email}>`,
    contactInfo: signer.email,
    ...(deps.timestamper ? { timestamper: deps.timestamper } : {}),
    ...(await signatureOptions(input, deps, context.signingTime)),
    describe: (_pdf, file, facts) => describeSigning(context, file, facts, withCertificate),
    ...(withCertificate ? { decorate: (pdf, existing, facts, file) => decorateWithCertificate(context, pdf, existing, facts, file) } : {}),
  });
  const notices = noticesOf(facts);
  if (level === "B-B" || level === "B-T") return { signed, notices };
  const extended = await addLongTermValidation(signed, {
    fetcher: deps.revocationFetcher ?? deps.fetcher,
    timestamper: level === "B-LTA" ? deps.timestamper : undefined,
    maxPages: deps.limits.maxPdfPages,
    // An encrypted input: the DSS and the document timestamp are encrypted with its key, as the signature's update is.
    password: input.document.password,
  });
  return { signed: extended, notices };
}

/** SignContext is what one sign request's audit record, stamp and certificate page are made from. */
interface SignContext {
  input: SignInput;
  deps: SignDependencies;
  level: SignatureLevel;
  document: ResolvedDocument;
  /** The PDF that is signed: the document itself, or its conversion. */
  pdfBytes: Buffer;
  signingTime: Date;
  service: { subject: string; fingerprint: string; algorithm: string };
}

/** resolvePdf resolves the request's document and converts a DOCX to PDF (after the convert path's intake). */
async function resolvePdf(input: SignInput, deps: SignDependencies): Promise<{ document: ResolvedDocument; pdfBytes: Buffer }> {
  const document = await resolveDocument(input.document, ["pdf", "docx"], { fetcher: deps.fetcher, limits: deps.limits });
  if (document.type !== "docx") return { document, pdfBytes: await filledForm(input, document.bytes, deps) };
  if (input.fields) {
    throw new SignetError("VALIDATION_ERROR", "fields fill a PDF form; the document is a DOCX (fill a template with POST /v1/annotate first).", {
      details: [{ field: "fields", issue: "only with a PDF document" }],
    });
  }
  // The convert path's intake, on the zip directory resolveDocument read: encrypted entries, what
  // the entries really inflate to (LibreOffice inflates without a cap), outside references.
  const prepared = await intake(document.zip ?? document.bytes, "docx", deps.limits);
  return { document, pdfBytes: await deps.converter.convert(prepared, { to: "pdf" }) };
}

/**
 * filledForm is the PDF with the request's form fields filled (its own incremental update, before
 * the signature's), then, on an unsigned form, each field merged with a widget whose /AP holds a
 * direct state dictionary split into field and widget (pdf-forms/separate-widgets.ts: pyHanko 0.20
 * must judge later updates), or the PDF itself.
 */
async function filledForm(input: SignInput, pdf: Buffer, deps: SignDependencies): Promise<Buffer> {
  const filled =
    input.fields || input.flatten
      ? await fillPdfForm(
          pdf,
          { fields: input.fields ?? [], flatten: input.flatten, dropXfa: input.dropXfa },
          { fonts: deps.fonts, maxPages: deps.limits.maxPdfPages },
        )
      : pdf;
  return separateWidgetsBeforeSigning(filled, deps.limits.maxPdfPages);
}

/** loadIdentity loads the signing identity; before anything is signed or timestamped, no signature may claim B-LT without revocation data. */
async function loadIdentity(deps: SignDependencies, level: SignatureLevel): Promise<SigningIdentity> {
  const identity = await deps.identities.load();
  if ((level === "B-LT" || level === "B-LTA") && identity.revocationProblem) {
    throw new SignetError("LEVEL_UNAVAILABLE", identity.revocationProblem, {
      details: [{ field: "level", issue: `${level} needs revocation data for the signing certificate` }],
    });
  }
  return identity;
}

/**
 * describeSigning is the complete audit trail, inside the signature dictionary the signature
 * covers (on an already-signed document it is the record: no certificate page can be added
 * there), and the stamp for the signature widget.
 */
async function describeSigning(context: SignContext, file: PdfFile, facts: InputFacts, withCertificate: boolean) {
  const { input, deps, document, signingTime, service, level } = context;
  const { signer } = input;
  const events = sortEvents(input.auditTrail);
  const earlierSignatures = await earlierSignaturesOf(file);
  const auditRecord = JSON.stringify({
    format: "signet-audit-record/1",
    documentSha256: document.sha256,
    ...(facts.rewritten ? { rewrittenDocument: { reason: facts.rewritten.reason, sha256: facts.rewritten.sha256 } } : {}),
    ...(document.fileName ? { documentName: document.fileName } : {}),
    ...(input.eventId ? { eventId: input.eventId } : {}),
    signer,
    signingTime: signingTime.toISOString(),
    service,
    ...(deps.timestamper && deps.timestampAuthority ? { timestampAuthority: deps.timestampAuthority } : {}),
    ...(earlierSignatures.length > 0 ? { earlierSignatures } : {}),
    events,
    ...(input.metadata ? { metadata: input.metadata } : {}),
  });
  const stamp = [
    `Signed electronically by ${signer.name} <${signer.email}>`,
    `${formatUtc(signingTime)} - Signet, PAdES ${level}${input.eventId ? ` - event ${input.eventId}` : ""}`,
    `Audit trail: ${events.length} event${events.length === 1 ? "" : "s"}, recorded in this signature (/${AUDIT_RECORD_KEY})`,
    `Document SHA-256 as received: ${document.sha256.slice(0, 32)}...`,
    ...(earlierSignatures.length > 0 ? [`Earlier signatures: ${earlierSignatures.length}, listed in the record; check them with /v1/verify`] : []),
  ];
  return { auditRecord, ...(withCertificate ? { stamp } : {}) };
}

/** decorateWithCertificate appends the audit trail certificate page to an unsigned document. */
function decorateWithCertificate(context: SignContext, pdf: PDF, existing: ExistingPages, facts: InputFacts, file: PdfFile) {
  const { input, deps, document, pdfBytes } = context;
  return drawAuditCertificate(
    pdf,
    {
      documentName: pdf.getTitle()?.trim() || document.fileName,
      documentSha256: document.sha256,
      // DOCX input: the converted PDF is what the signature covers (it is the output's prefix).
      convertedPdfSha256: document.type === "docx" ? createHash("sha256").update(pdfBytes).digest("hex") : undefined,
      rewrittenPdf: facts.rewritten,
      // signPdf decorates only documents without signed fields or a certification, so
      // this is empty today (the audit record and the stamp list earlier signatures);
      // it lists any signature a looser rule would let through.
      existingSignatures: listSignatures(file.latest),
      documentPages: existing.pages,
      eventId: input.eventId,
      signer: input.signer,
      events: input.auditTrail,
      signingTime: context.signingTime,
      service: context.service,
      timestampAuthority: deps.timestamper ? deps.timestampAuthority : undefined,
      certification: input.certify ? { permission: input.certify.permissions } : undefined,
      metadata: input.metadata,
    },
    deps.fonts(),
    existing.lastPage,
  );
}
