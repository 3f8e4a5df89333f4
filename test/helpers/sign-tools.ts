import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PDFDocument, StandardFonts, rgb } from "pdf-lib";
import { expect } from "vitest";
import { readElement } from "#domain/shared/der.ts";
import { config } from "#config";
import { extraFonts } from "#adapters/bundled-fonts.ts";
import type { FontFiles } from "#domain/pdf-text/fonts.ts";
import { pdfsig, qpdfCheck, type PdfSource, type PdfsigSignature } from "#test/helpers/pdf-tools.ts";
import { runPyhanko } from "#test/helpers/pyhanko.ts";

/** scratchDir makes a temporary folder for one test file. */
export function scratchDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `signet-${prefix}-`));
}

let fonts: FontFiles | undefined;

/** testFonts reads the bundled certificate fonts straight from assets/fonts, plus SIGNET_EXTRA_FONTS_DIR's (HanaMinB locally), once. */
export function testFonts(): FontFiles {
  const dir = new URL("../../assets/fonts/", import.meta.url);
  fonts ??= {
    regular: readFileSync(new URL("DejaVuSans.ttf", dir)),
    bold: readFileSync(new URL("DejaVuSans-Bold.ttf", dir)),
    mono: readFileSync(new URL("DejaVuSansMono.ttf", dir)),
    cjk: readFileSync(new URL("DroidSansFallback.ttf", dir)),
    fallbacks: [
      ...["NotoSansDevanagari-Regular.ttf", "NotoSansTamil-Regular.ttf", "NotoSansThai-Regular.ttf", "NotoEmoji-Regular.ttf"].map((name) =>
        readFileSync(new URL(name, dir)),
      ),
      ...extraFonts(config.signing.extraFontsDir),
    ],
  };
  return fonts;
}

/** makePdf builds a PDF with pdf-lib: each page has a heading, body text and coloured shapes. */
export async function makePdf(pages = 3, options: { title?: string; classicXref?: boolean; size?: [number, number] } = {}): Promise<Buffer> {
  const doc = await PDFDocument.create();
  if (options.title) doc.setTitle(options.title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let index = 0; index < pages; index++) {
    const page = doc.addPage(options.size ?? [595, 842]);
    page.drawText(`Contract page ${index + 1}`, { x: 60, y: 760, size: 26, font, color: rgb(0.1, 0.2, 0.5) });
    page.drawText(`Hello signer, this is clause ${index + 1}.`, { x: 60, y: 700, size: 12, font });
    page.drawRectangle({ x: 60, y: 400 - index * 30, width: 200, height: 120, color: rgb(0.9, (0.3 + index * 0.2) % 1, 0.2) });
    page.drawCircle({ x: 420, y: 300, size: 60, color: rgb(0.2, 0.7, 0.4) });
  }
  // A classic cross-reference table when asked: pyHanko then writes its update with one too
  // (libpdf 0.x cannot read pyHanko's xref streams, whose offset fields are 8 bytes wide).
  return Buffer.from(await doc.save({ useObjectStreams: !options.classicXref }));
}

/** SignedPdfExpectations says what expectSignedPdf knows about how a signed file was made. */
export interface SignedPdfExpectations {
  /** The PDF that was signed, when known: it must be a byte prefix of the output (an incremental update). */
  input?: Uint8Array | string;
  /** How many signatures pdfsig must find (default 1). */
  signatures?: number;
  /** The expected signature type of each signature, in file order (default ETSI.CAdES.detached for all). */
  types?: string[];
}

/**
 * expectSignedPdf runs the independent checks on a signed output (bytes or a file path): pdfsig
 * finds the expected number of signatures, each "Signature is Valid" and of the expected type
 * (ETSI.CAdES.detached), the last one "Total document signed"; qpdf --check is clean; and when
 * the input is known, it is a byte prefix of the output. It returns pdfsig's signatures.
 */
export async function expectSignedPdf(signed: PdfSource, expectations: SignedPdfExpectations = {}): Promise<PdfsigSignature[]> {
  const { signatures: count = 1 } = expectations;
  const bytes = typeof signed === "string" ? readFileSync(signed) : Buffer.from(signed);
  expect(bytes.subarray(0, 5).toString("latin1"), "a PDF").toBe("%PDF-");
  if (expectations.input !== undefined) {
    const input = typeof expectations.input === "string" ? readFileSync(expectations.input) : Buffer.from(expectations.input);
    expect(input.length, "the input is shorter than the output").toBeLessThan(bytes.length);
    expect(bytes.subarray(0, input.length).equals(input), "the input is a byte prefix of the output (incremental update)").toBe(true);
  }
  const found = await pdfsig(bytes);
  const report = found.map((signature, index) => `#${index + 1}:${signature.text}`).join("\n");
  expect(found, `pdfsig signature count\n${report}`).toHaveLength(count);
  const types = expectations.types ?? found.map(() => "ETSI.CAdES.detached");
  found.forEach((signature, index) => {
    expect(signature.type, `signature #${index + 1} type\n${report}`).toBe(types[index]);
    expect(signature.valid, `signature #${index + 1}: Signature is Valid\n${report}`).toBe(true);
  });
  expect(found.at(-1)!.totalDocumentSigned, `last signature: Total document signed\n${report}`).toBe(true);
  const qpdf = await qpdfCheck(bytes);
  expect(qpdf.ok, `qpdf --check\n${qpdf.output}`).toBe(true);
  return found;
}

/** cmsOf returns the CMS DER of the last signature in a signed file (its /Contents hex without the zero padding). */
export function cmsOf(pdf: Buffer): Buffer {
  const text = pdf.toString("latin1");
  const at = text.lastIndexOf("/Contents <");
  const hex = text.slice(at + "/Contents <".length, text.indexOf(">", at));
  const padded = Buffer.from(hex, "hex");
  return padded.subarray(0, readElement(padded, 0).end);
}

/**
 * legacyP12 makes a self-signed RSA key and certificate with openssl and writes them as
 * `dir`/id.p12 (empty password) in the legacy SHA-1/3DES algorithms, the only ones node-forge
 * (inside @signpdf) reads; it returns the file's path.
 */
export function legacyP12(dir: string, commonName: string, bits: number): string {
  openssl(dir, "req", "-x509", "-newkey", `rsa:${bits}`, "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days", "2", "-subj", `/CN=${commonName}`);
  openssl(
    dir,
    "pkcs12",
    "-export",
    "-inkey",
    "key.pem",
    "-in",
    "cert.pem",
    "-out",
    "id.p12",
    "-passout",
    "pass:",
    "-certpbe",
    "PBE-SHA1-3DES",
    "-keypbe",
    "PBE-SHA1-3DES",
    "-macalg",
    "sha1",
  );
  return join(dir, "id.p12");
}

/** openssl runs the openssl CLI in a folder. */
export function openssl(dir: string, ...args: string[]): string {
  return execFileSync("openssl", args, { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** LoopbackTsa is an RFC 3161 timestamp authority on 127.0.0.1 (openssl ts -reply behind HTTP). */
export interface LoopbackTsa {
  url: string;
  /** PEM file of the TSA's certificate (with `selfSigned`, its own root, for validators). */
  certificatePem: string;
  requests: number;
  /** TCP connections accepted so far. */
  connections: number;
  close(): Promise<void>;
}

/**
 * startLoopbackTsa makes a CA and a TSA certificate (extendedKeyUsage timeStamping, critical)
 * with openssl in a temp folder and answers timestamp queries with `openssl ts -reply`. With
 * `selfSigned` the TSA certificate is its own root (no key usage, so it may issue itself): its
 * token's chain is complete and needs no revocation data, for B-LT against a loopback TSA.
 */
export async function startLoopbackTsa(options: { tamper?: (reply: Buffer) => Buffer; selfSigned?: boolean } = {}): Promise<LoopbackTsa> {
  const dir = scratchDir("tsa");
  writeFileSync(
    join(dir, "tsa.cnf"),
    [
      "[ tsa ]",
      "default_tsa = tsa_config",
      "[ tsa_config ]",
      `dir = ${dir}`,
      "serial = $dir/serial",
      "crypto_device = builtin",
      "signer_cert = $dir/tsa.crt",
      "certs = $dir/tsa.crt",
      "signer_key = $dir/tsa.key",
      "signer_digest = sha256",
      "default_policy = 1.2.3.4.1",
      "digests = sha256, sha384, sha512",
      "accuracy = secs:1",
      "ordering = yes",
      "tsa_name = yes",
      "ess_cert_id_chain = no",
      "ess_cert_id_alg = sha256",
      "[ tsa_ext ]",
      "basicConstraints = critical, CA:false",
      "keyUsage = critical, digitalSignature, nonRepudiation",
      "extendedKeyUsage = critical, timeStamping",
      "",
    ].join("\n"),
  );
  writeFileSync(join(dir, "serial"), "01\n");
  if (options.selfSigned) {
    writeFileSync(
      join(dir, "req.cnf"),
      [
        "[ req ]",
        "distinguished_name = dn",
        "prompt = no",
        "[ dn ]",
        "CN = Signet Test TSA (self-signed)",
        "[ tsa_self ]",
        "basicConstraints = critical, CA:false",
        "extendedKeyUsage = critical, timeStamping",
        "subjectKeyIdentifier = hash",
        "",
      ].join("\n"),
    );
    openssl(
      dir,
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "tsa.key",
      "-out",
      "tsa.crt",
      "-days",
      "2",
      "-config",
      "req.cnf",
      "-extensions",
      "tsa_self",
    );
  } else {
    issueTsaCertificate(dir);
  }

  const state = { requests: 0, connections: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      state.requests++;
      const queryPath = join(dir, `q${state.requests}.tsq`);
      const replyPath = join(dir, `r${state.requests}.tsr`);
      writeFileSync(queryPath, Buffer.concat(chunks));
      execFile("openssl", ["ts", "-reply", "-config", join(dir, "tsa.cnf"), "-queryfile", queryPath, "-out", replyPath], (error) => {
        if (error) {
          res.writeHead(500).end();
          return;
        }
        const reply = readFileSync(replyPath);
        res.writeHead(200, { "content-type": "application/timestamp-reply" }).end(options.tamper ? options.tamper(reply) : reply);
      });
    });
  });
  server.on("connection", () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/tsr`,
    certificatePem: join(dir, "tsa.crt"),
    get requests() {
      return state.requests;
    },
    get connections() {
      return state.connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** issueTsaCertificate makes a root "Signet Test TSA Root" and the TSA certificate it issues (tsa.cnf's tsa_ext). */
function issueTsaCertificate(dir: string): void {
  openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=Signet Test TSA Root");
  openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "tsa.key", "-out", "tsa.csr", "-subj", "/CN=Signet Test TSA");
  openssl(
    dir,
    "x509",
    "-req",
    "-in",
    "tsa.csr",
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-out",
    "tsa.crt",
    "-days",
    "2",
    "-extfile",
    "tsa.cnf",
    "-extensions",
    "tsa_ext",
  );
}

/**
 * forgeGenTime changes the year of the first GeneralizedTime (a TSTInfo's genTime) found in DER
 * bytes, keeping the length: the token still parses, but its TSA signature no longer matches.
 */
export function forgeGenTime(der: Buffer): Buffer {
  const forged = Buffer.from(der);
  const at = forged.findIndex(
    (byte, index) =>
      byte === 0x18 && forged[index + 1]! >= 0x0f && forged[index + 1]! < 0x20 && forged.subarray(index + 2, index + 4).toString("latin1") === "20",
  );
  if (at < 0) throw new Error("no GeneralizedTime in the token");
  forged[at + 5] = forged[at + 5] === 0x39 ? 0x38 : forged[at + 5]! + 1;
  return forged;
}

/** signWithSignpdf signs a PDF with another library (@signpdf, adbe.pkcs7.detached, an RSA P12 made by openssl). */
export async function signWithSignpdf(pdf: Buffer): Promise<Buffer> {
  const { pdflibAddPlaceholder } = await import("@signpdf/placeholder-pdf-lib");
  const { P12Signer } = await import("@signpdf/signer-p12");
  const { SignPdf } = await import("@signpdf/signpdf");
  const p12 = readFileSync(legacyP12(scratchDir("signpdf"), "Other Tool Signer", 2048));
  const doc = await PDFDocument.load(pdf);
  pdflibAddPlaceholder({ pdfDoc: doc, reason: "other tool", contactInfo: "other@example.com", name: "Other Tool Signer", location: "Test" });
  const withPlaceholder = Buffer.from(await doc.save({ useObjectStreams: false }));
  return Buffer.from(await new SignPdf().sign(withPlaceholder, new P12Signer(p12)));
}

/**
 * withSharedSignatureFields appends (incrementally) `count` more signature fields whose /V is the
 * signature dictionary of the file's first signature: the shape of a verify-amplification attack.
 */
export async function withSharedSignatureFields(signed: Buffer, count: number): Promise<Buffer> {
  const { PDF, PdfDict } = await import("@libpdf/core");
  const pdf = await PDF.load(signed);
  const form = pdf.getOrCreateForm();
  const first = form.getFields().find((field) => field.type === "signature")!;
  const value = (first as unknown as { getDict(): InstanceType<typeof PdfDict> }).getDict().get("V")!;
  for (let index = 0; index < count; index++) form.createSignatureField(`Copy_${index}`).getDict().set("V", value);
  return Buffer.from(await pdf.save({ incremental: true }));
}

/**
 * certify marks a PDF as certified with DocMDP permission `p` (an incremental update adding
 * /Perms /DocMDP and its signature dictionary's DocMDP reference; the signature value itself is
 * a placeholder: the signer must refuse from the permission alone).
 */
export async function certify(bytes: Buffer, p: 1 | 2 | 3): Promise<Buffer> {
  const { PDF, PdfArray, PdfDict, PdfName, PdfNumber, PdfString } = await import("@libpdf/core");
  const pdf = await PDF.load(bytes);
  const signature = PdfDict.of({
    Type: PdfName.of("Sig"),
    Filter: PdfName.of("Adobe.PPKLite"),
    SubFilter: PdfName.of("ETSI.CAdES.detached"),
    Contents: new PdfString(new Uint8Array(16), "hex"),
    Reference: new PdfArray([
      PdfDict.of({
        Type: PdfName.of("SigRef"),
        TransformMethod: PdfName.of("DocMDP"),
        TransformParams: PdfDict.of({ Type: PdfName.of("TransformParams"), P: PdfNumber.of(p), V: PdfName.of("1.2") }),
      }),
    ]),
  });
  pdf.getCatalog().set("Perms", PdfDict.of({ DocMDP: pdf.register(signature) }));
  return Buffer.from(await pdf.save({ incremental: true }));
}

/** PyhankoSignature is one signature as pyHanko's validate script reports it. */
export interface PyhankoSignature {
  field: string;
  subFilter: string;
  intact: boolean;
  valid: boolean;
  trusted: boolean;
  coverage: string;
  modificationLevel: string | null;
  docmdpOk: boolean | null;
  bottomLine: boolean;
  diff?: string;
}

/** pyhankoValidate runs pyHanko on a PDF: every signature's verdict, and whether all hold (exit 0). */
export function pyhankoValidate(pdf: Buffer, roots: string[] = []): { signatures: PyhankoSignature[]; allHold: boolean; output: string } {
  const file = join(scratchDir("pyhanko"), "in.pdf");
  writeFileSync(file, pdf);
  const run = runPyhanko("pyhanko-validate.py", [file, ...roots]);
  if (run.status !== 0 && run.status !== 1) throw new Error(`pyHanko validate failed: ${run.stderr}`);
  const output = run.stdout;
  const rows = output
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as PyhankoSignature & { signatures?: number });
  return { signatures: rows.filter((row) => row.signatures === undefined), allHold: run.status === 0, output };
}

/**
 * pyhankoLtv runs pyHanko's PAdES long-term validation (profile LT or LTA) offline, trusting
 * `roots` (PEM files): only what the file embeds may be used (test/helpers/pyhanko-ltv.py).
 */
export function pyhankoLtv(pdf: Buffer, profile: "LT" | "LTA", roots: string[]): { ok: boolean; output: string } {
  const file = join(scratchDir("ltv"), "in.pdf");
  writeFileSync(file, pdf);
  const run = runPyhanko("pyhanko-ltv.py", [profile, file, ...roots]);
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
}

/** holdsInPyhanko is pyHanko's verdict on one signature, trust aside: intact, valid, and DocMDP (and diff analysis) satisfied. */
export function holdsInPyhanko(signature: PyhankoSignature): boolean {
  return signature.intact && signature.valid && signature.docmdpOk !== false && signature.modificationLevel !== "OTHER";
}

/** OtherSigner is a key and certificate (openssl, RSA 2048) another tool signs with. */
function otherSigner(): { dir: string; key: string; cert: string } {
  const dir = scratchDir("other-signer");
  openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "cert.pem", "-days", "2", "-subj", "/CN=Other Tool Signer");
  return { dir, key: join(dir, "key.pem"), cert: join(dir, "cert.pem") };
}

/**
 * signWithPyhanko signs a PDF with pyHanko (another PAdES implementation): a PAdES approval
 * signature, adbe.pkcs7.detached with `pkcs7`, or a certification signature with DocMDP P.
 */
export function signWithPyhanko(pdf: Buffer, options: { certify?: 1 | 2 | 3; pkcs7?: boolean; field?: string } = {}): Buffer {
  const signer = otherSigner();
  const input = join(signer.dir, "in.pdf");
  const output = join(signer.dir, "out.pdf");
  writeFileSync(input, pdf);
  const args = [input, output, signer.key, signer.cert];
  if (options.certify) args.push("--certify", String(options.certify));
  if (options.pkcs7) args.push("--pkcs7");
  if (options.field) args.push("--field", options.field);
  const run = runPyhanko("pyhanko-sign.py", args);
  if (run.status !== 0) throw new Error(`pyHanko sign failed: ${run.stderr}`);
  return readFileSync(output);
}
