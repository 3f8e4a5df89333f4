import { PdfArray, PdfDict, PdfName, PdfNumber, type PdfObject, PdfRef, PdfStream, PdfString } from "@libpdf/core";
import { SignetError } from "#domain/shared/errors.ts";
import type { PdfFile } from "#domain/pdf/pdf-file.ts";
import { type CipherMethod, decryptWith, type StandardSecurity, unlock, type Unlocked } from "#domain/pdf/standard-security.ts";

/**
 * Encrypted input: reads the newest trailer's /Encrypt dictionary through the PdfFile, refuses what
 * Signet cannot open (another security handler, a malformed dictionary), finds the password that
 * opens the file (the empty user password first, so owner-password-only files open without one)
 * and hands the PdfFile a decryptor (pdf-file.ts decrypts strings and streams as it reads them).
 */

/** FileUnlock is how an encrypted file was opened: the password that worked (empty for none), as whom, the handler. */
export interface FileUnlock {
  password: string;
  as: "user" | "owner";
  /** What encrypts the file, for reports: "AES-256", "AES-128", "RC4-128", "RC4-40". */
  algorithm: string;
  revision: number;
}

/** passwordRequired is the 422 for an encrypted file that no password (or the empty one) opens. */
const passwordRequired = () =>
  new SignetError("ENCRYPTED_DOCUMENT", "The PDF is password-protected: send its password in document.password (the user or the owner password).", {
    details: [{ field: "document.password", issue: "required for this PDF" }],
  });

const wrongPassword = () =>
  new SignetError("WRONG_PASSWORD", "The password in document.password opens neither as the PDF's user nor as its owner password.", {
    details: [{ field: "document.password", issue: "does not open the PDF" }],
  });

const malformed = (what: string) =>
  new SignetError("INVALID_DOCUMENT", `The PDF's encryption dictionary is damaged (${what}); it cannot be opened with any password.`);

const HANDLER_NAMES: Record<string, string> = {
  "Adobe.PubSec": "the public-key (certificate) security handler /Adobe.PubSec",
  "Adobe.APS": "Adobe LiveCycle rights management (/Adobe.APS)",
};

/** unsupportedHandler is the 422 for encryption other than the standard password handler. */
function unsupportedHandler(filter: string): SignetError {
  const named = HANDLER_NAMES[filter] ?? `the security handler /${filter}`;
  return new SignetError(
    "ENCRYPTED_DOCUMENT",
    `The PDF is encrypted with ${named}; Signet opens only password-encrypted PDFs (the standard security handler). Remove the encryption with the application that applied it.`,
  );
}

const int = (dict: PdfDict, key: string) => {
  const value = dict.get(key);
  return value instanceof PdfNumber && Number.isSafeInteger(value.value) ? value.value : undefined;
};

const bytesOf = (dict: PdfDict, key: string) => {
  const value = dict.get(key);
  return value instanceof PdfString ? Buffer.from(value.bytes) : undefined;
};

/** cryptMethod is the method of the crypt filter a V4/V5 dictionary names for strings or streams (Identity: none). */
function cryptMethod(dict: PdfDict, key: "StrF" | "StmF"): CipherMethod {
  const name = dict.get(key);
  if (!(name instanceof PdfName) || name.value === "Identity") return "None";
  const filters = dict.get("CF");
  const filter = filters instanceof PdfDict ? filters.get(name.value) : undefined;
  const method = filter instanceof PdfDict ? filter.get("CFM") : undefined;
  if (!(method instanceof PdfName)) throw malformed(`/${key} names /${name.value}, which /CF does not define`);
  if (method.value === "None" || method.value === "V2" || method.value === "AESV2" || method.value === "AESV3") return method.value;
  throw malformed(`the crypt filter method /${method.value}`);
}

/** keyBytesOf is the file key length: 5 bytes for V1, /Length bits for V2-V4 (40 to 128, whole bytes), 32 for V5. */
function keyBytesOf(dict: PdfDict, version: number, stringMethod: CipherMethod): number {
  if (version >= 5) return 32;
  if (version === 1) return 5;
  if (version === 4 && stringMethod === "AESV2") return 16;
  const bits = int(dict, "Length") ?? 40;
  if (bits < 40 || bits > 128 || bits % 8 !== 0) throw malformed(`a key length of ${bits} bits`);
  return bits / 8;
}

/** checkedLengths refuses /O and /U (and /OE, /UE) too short for the revision: the key derivations read fixed spans of them. */
function checkedLengths(security: Omit<StandardSecurity, "fileId">): void {
  const modern = security.revision >= 5;
  const need = modern ? 48 : 32;
  if (security.owner.length < need || security.user.length < need) throw malformed(`/O or /U shorter than ${need} bytes`);
  if (modern && ((security.ownerKey?.length ?? 0) < 32 || (security.userKey?.length ?? 0) < 32)) throw malformed("/OE or /UE shorter than 32 bytes");
}

/** readSecurity turns the /Encrypt dictionary into StandardSecurity, refusing other handlers and broken dictionaries. */
function readSecurity(dict: PdfDict, fileId: Buffer): StandardSecurity {
  const filter = dict.get("Filter");
  if (!(filter instanceof PdfName)) throw malformed("no /Filter");
  if (filter.value !== "Standard") throw unsupportedHandler(filter.value);
  const version = int(dict, "V") ?? 0;
  const revision = int(dict, "R") ?? 0;
  if (![1, 2, 4, 5].includes(version) || revision < 2 || revision > 6) throw malformed(`/V ${version} /R ${revision}`);
  const legacy = version < 4;
  const stringMethod = legacy ? "V2" : cryptMethod(dict, "StrF");
  const streamMethod = legacy ? "V2" : cryptMethod(dict, "StmF");
  const metadata = dict.get("EncryptMetadata");
  const security = {
    version,
    revision,
    keyBytes: keyBytesOf(dict, version, stringMethod),
    owner: bytesOf(dict, "O") ?? Buffer.alloc(0),
    user: bytesOf(dict, "U") ?? Buffer.alloc(0),
    ownerKey: bytesOf(dict, "OE"),
    userKey: bytesOf(dict, "UE"),
    permissions: int(dict, "P") ?? -1,
    encryptMetadata: !(metadata && "value" in metadata && metadata.value === false),
    stringMethod,
    streamMethod,
  };
  checkedLengths(security);
  if (revision < 5 && fileId.length === 0) throw malformed("no /ID in the trailer, from which the key is derived");
  return { ...security, fileId };
}

/** algorithmName names the cipher for reports. */
function algorithmName(security: StandardSecurity): string {
  if (security.streamMethod === "AESV3") return "AES-256";
  if (security.streamMethod === "AESV2") return "AES-128";
  return `RC4-${security.keyBytes * 8}`;
}

/** ObjectDecryptor decrypts one object as read from the file (strings and stream data), keyed by its number and generation. */
export type ObjectDecryptor = (value: PdfObject, number: number, generation: number) => PdfObject;

/** decryptor walks an object: strings and stream data decrypted, except what ISO 32000 leaves in the clear. */
function decryptor(security: StandardSecurity, key: Buffer, encryptObject: number | undefined): ObjectDecryptor {
  const walk = (value: PdfObject, number: number, generation: number): PdfObject => {
    if (number === encryptObject) return value;
    if (value instanceof PdfString) return new PdfString(decryptWith(security.stringMethod, key, Buffer.from(value.bytes), number, generation), value.format);
    if (value instanceof PdfArray) return new PdfArray([...value].map((item) => walk(item, number, generation)));
    if (!(value instanceof PdfDict)) return value;
    const type = value.get("Type");
    const typeName = type instanceof PdfName ? type.value : undefined;
    // Cross-reference streams are never encrypted; a signature's /Contents is not (12.8.1); metadata may be left clear.
    if (typeName === "XRef") return value;
    const signature = value.has("ByteRange") && value.has("Contents");
    const copy = new PdfDict();
    for (const [name, item] of value) copy.set(name.value, signature && name.value === "Contents" ? item : walk(item, number, generation));
    if (!(value instanceof PdfStream)) return copy;
    const clear = typeName === "Metadata" && !security.encryptMetadata;
    return new PdfStream(copy, clear ? value.data : decryptWith(security.streamMethod, key, Buffer.from(value.data), number, generation));
  };
  return walk;
}

/**
 * unlockPdfFile opens an encrypted PdfFile for reading with `password`, or without one with the empty
 * user password (owner-password-only files); none that opens is ENCRYPTED_DOCUMENT, a given one that
 * does not is WRONG_PASSWORD. The file then decrypts what it reads. Undefined when not encrypted.
 */
export function unlockPdfFile(file: PdfFile, password: string | undefined): FileUnlock | undefined {
  if (!file.encrypted) return undefined;
  const trailer = file.revisions.at(-1)!.trailer;
  const encrypt = trailer.get("Encrypt");
  const dict = encrypt instanceof PdfRef ? file.objectAt(encrypt, file.revisions.length - 1) : encrypt;
  if (!(dict instanceof PdfDict)) throw malformed("the trailer's /Encrypt is not a dictionary");
  const ids = trailer.get("ID");
  const first = ids instanceof PdfArray ? ids.at(0) : undefined;
  const security = readSecurity(dict, first instanceof PdfString ? Buffer.from(first.bytes) : Buffer.alloc(0));
  // A given password must open the file; without one, the empty user password (owner-password-only files).
  const used = password ?? "";
  const opened: Unlocked | undefined = unlock(security, used);
  if (!opened) throw used === "" ? passwordRequired() : wrongPassword();
  file.decryptWith(decryptor(security, opened.key, encrypt instanceof PdfRef ? encrypt.objectNumber : undefined));
  return { password: used, as: opened.as, algorithm: algorithmName(security), revision: security.revision };
}
