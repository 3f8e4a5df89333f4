import { type Container, openContainer } from "#domain/documents/checks/container-checks.ts";
import { type OfficeInputLimits, prepareOfficeInput } from "#domain/documents/checks/scrub.ts";
import type { CompoundFile } from "#domain/shared/compound-file.ts";
import type { SourceFormat } from "#domain/documents/formats.ts";
import { ZipContainer } from "#domain/shared/zip-container.ts";
import type { DocumentLimits } from "#domain/shared/document.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { formatBytes } from "#domain/shared/sizes.ts";

/** IntakeLimits bound what intake accepts: the document's size, the zip guards, image pixels and SVG parts. */
export interface IntakeLimits extends DocumentLimits, OfficeInputLimits {}

// Only this module holds it: PreparedDocument's constructor refuses any other caller at run time too.
const INTAKE = Symbol("intake");

/**
 * PreparedDocument is a document that went through intake: its format, its container as intake
 * opened it (the zip directory, the compound file), the bytes LibreOffice may see (outside
 * references removed) and what was removed. Only intake() makes one, so a function that takes a
 * PreparedDocument (the Converter port) says in its signature that the checks ran.
 */
export class PreparedDocument {
  /** What the bytes are: the zip package (its directory read once), the compound file, or text. */
  readonly container: Container;

  private constructor(
    token: typeof INTAKE,
    /** The format the caller declared and intake confirmed from the content. */
    readonly format: SourceFormat,
    /** The bytes LibreOffice may see: the upload, or its rewrite without outside references. */
    readonly bytes: Uint8Array,
    container: Container,
    /** What was taken out, one entry per reference ("<part>: <what>"), for the log. */
    readonly removed: readonly string[],
  ) {
    if (token !== INTAKE) throw new TypeError("A PreparedDocument is made by intake() only.");
    this.container = container;
  }

  /** text is the document decoded as UTF-8 (Markdown, HTML, CSV), decoded once by intake. */
  get text(): string | undefined {
    return this.container.kind === "text" ? this.container.text : undefined;
  }

  /** zip is the package's directory when the document is a zip package (DOCX, ODT, XLSX, ...). */
  get zip(): ZipContainer | undefined {
    return this.container.kind === "zip" ? this.container.zip : undefined;
  }

  /** @internal made by intake below; the constructor is private to every other module. */
  static make(token: typeof INTAKE, format: SourceFormat, bytes: Uint8Array, container: Container, removed: readonly string[]): PreparedDocument {
    return new PreparedDocument(token, format, bytes, container, removed);
  }
}

/** checkSize refuses an empty upload (400) and one above maxDocumentBytes (413). */
function checkSize(bytes: Uint8Array, limits: DocumentLimits): void {
  if (bytes.length === 0) {
    throw new SignetError("VALIDATION_ERROR", "The uploaded file is empty (0 bytes); attach the document itself.", {
      details: [{ field: "file", issue: "empty" }],
    });
  }
  if (bytes.length > limits.maxDocumentBytes) {
    throw new SignetError("PAYLOAD_TOO_LARGE", `The file is larger than the ${formatBytes(limits.maxDocumentBytes)} limit.`);
  }
}

/**
 * intake is the one path a document takes before LibreOffice: size and emptiness, whether the
 * content is what `declared` claims (its FORMATS row: container, sniff, encryption, what zip
 * entries really inflate to), then the rules of prepareOfficeInput (outside references removed or
 * refused, SVG parts, embedded documents, formulas, image pixels). The zip directory or compound
 * file is opened once and handed to every check; a zip the caller already opened (`source`, e.g.
 * the one resolveDocument read to tell a DOCX from a PDF) is not read again. The result is the
 * only way to a PreparedDocument.
 */
export async function intake(source: Uint8Array | ZipContainer, declared: SourceFormat, limits: IntakeLimits): Promise<PreparedDocument> {
  const bytes = source instanceof ZipContainer ? source.bytes : source;
  checkSize(bytes, limits);
  const container = await openContainer(source, declared, limits);
  const zip = container.kind === "zip" ? { zip: container.zip } : {};
  const cfb: { cfb?: CompoundFile } = container.kind === "cfb" ? { cfb: container.cfb } : {};
  const text = container.kind === "text" && container.text !== undefined ? { text: container.text } : {};
  const { request, removed } = await prepareOfficeInput({ bytes, from: declared, ...zip, ...cfb, ...text }, limits);
  const prepared: Container =
    container.kind === "zip" && request.zip
      ? { kind: "zip", zip: request.zip }
      : container.kind === "text" && request.text !== undefined
        ? { kind: "text", text: request.text }
        : container;
  return PreparedDocument.make(INTAKE, declared, request.bytes, prepared, removed);
}
