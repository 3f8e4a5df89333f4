// Encrypted PDFs for the password tests, made and checked by qpdf and poppler (independent
// implementations of the standard security handler), never by Signet's own code.
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { scratchDir } from "#test/helpers/scratch.ts";

const run = promisify(execFile);

/** QpdfCipher names the qpdf --encrypt key length and, for 128 bits, AES or RC4. */
export type QpdfCipher = "aes-256" | "aes-128" | "rc4-128" | "rc4-40";

const CIPHER_ARGS: Record<QpdfCipher, { bits: string; extra: string[] }> = {
  "aes-256": { bits: "256", extra: [] },
  "aes-128": { bits: "128", extra: ["--use-aes=y"] },
  "rc4-128": { bits: "128", extra: ["--use-aes=n"] },
  "rc4-40": { bits: "40", extra: [] },
};

/** qpdfEncrypt encrypts a PDF with qpdf: user and owner passwords ("" user: owner-password-only), a cipher, extra flags (permissions). */
export async function qpdfEncrypt(input: Buffer, user: string, owner: string, cipher: QpdfCipher, flags: string[] = []): Promise<Buffer> {
  const dir = scratchDir("qpdf-encrypt");
  const { bits, extra } = CIPHER_ARGS[cipher];
  await writeFile(join(dir, "in.pdf"), input);
  await run("qpdf", ["--allow-weak-crypto", "--encrypt", user, owner, bits, ...extra, ...flags, "--", join(dir, "in.pdf"), join(dir, "out.pdf")]);
  return readFile(join(dir, "out.pdf"));
}

/** withPasswordFile writes a PDF to a scratch file and runs a tool on it, returning stdout (qpdf exit 3, warnings, included). */
async function onFile(pdf: Buffer, tool: string, args: (path: string) => string[]): Promise<string> {
  const path = join(scratchDir("pdf-passwords"), "file.pdf");
  await writeFile(path, pdf);
  try {
    return (await run(tool, args(path), { maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; code?: number };
    return `${failed.stdout ?? ""}${failed.stderr ?? ""}exit ${failed.code}`;
  }
}

/** qpdfShowEncryption is qpdf --show-encryption's report with a password ("" for none). */
export const qpdfShowEncryption = (pdf: Buffer, password = "") => onFile(pdf, "qpdf", (path) => [`--password=${password}`, "--show-encryption", path]);

/** qpdfCheckWith is qpdf --check's report with a password. */
export const qpdfCheckWith = (pdf: Buffer, password = "") => onFile(pdf, "qpdf", (path) => [`--password=${password}`, "--check", path]);

/** pdftotextWith extracts text with poppler given a user (or owner) password. */
export const pdftotextWith = (pdf: Buffer, password: string) => onFile(pdf, "pdftotext", (path) => ["-upw", password, "-enc", "UTF-8", path, "-"]);
