// Signed PDFs judged by independent validators: poppler's pdfsig and qpdf (expectSignedPdf) and
// pyHanko (pyhankoValidate, pyhankoLtv), plus the CMS of a signature for byte-level checks.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { readElement } from "#domain/pki/der.ts";
import { pdfsig, qpdfCheck, type PdfSource, type PdfsigSignature } from "#test/helpers/pdf-tools.ts";
import { runPyhanko } from "#test/helpers/pyhanko.ts";
import { scratchDir } from "#test/helpers/scratch.ts";

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
  /** The catalog's /Perms /DocMDP names this signature (a certification). */
  certifies?: boolean;
  /** The DocMDP permission pyHanko reads from the signature's /Reference, if any. */
  docmdp?: number | null;
}

/** PyhankoNoVerdict is an exception inside pyHanko: where (the file, or one signature), its name and message. */
export interface PyhankoNoVerdict {
  stage: string;
  /** "ExceptionName: message". */
  noVerdict: string;
  raisedAt: string;
}

/**
 * PyhankoOutcome is what one pyHanko run gave: a verdict on every signature (`allHold` says whether
 * all hold), or no verdict, with the exceptions that stopped it (never a refusal: a crash says nothing
 * about the signature), or a run killed at its time limit.
 */
export type PyhankoOutcome =
  | { kind: "verdict"; signatures: PyhankoSignature[]; allHold: boolean; output: string }
  | { kind: "no verdict"; signatures: PyhankoSignature[]; crashes: PyhankoNoVerdict[]; output: string }
  | { kind: "timed out"; output: string };

/** pyhankoOutcome runs pyHanko (test/helpers/pyhanko-validate.py) on a PDF and says what it gave, crash or verdict. */
export function pyhankoOutcome(pdf: Buffer, roots: string[] = [], options: { timeoutMs?: number; password?: string } = {}): PyhankoOutcome {
  const file = join(scratchDir("pyhanko"), "in.pdf");
  writeFileSync(file, pdf);
  const password = options.password === undefined ? [] : ["--password", options.password];
  const run = runPyhanko("pyhanko-validate.py", [...password, file, ...roots], options);
  if (run.signal === "SIGTERM") return { kind: "timed out", output: `pyHanko did not finish within ${options.timeoutMs! / 1000} s` };
  if (run.status !== 0 && run.status !== 1 && run.status !== 3) throw new Error(`pyHanko validate failed (exit ${run.status}): ${run.stderr}`);
  const output = run.stdout;
  const rows = output
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as PyhankoSignature & Partial<PyhankoNoVerdict> & { signatures?: number });
  const signatures = rows.filter((row) => row.signatures === undefined && row.noVerdict === undefined);
  const crashes = rows.filter((row) => typeof row.noVerdict === "string") as PyhankoNoVerdict[];
  if (run.status === 3) return { kind: "no verdict", signatures, crashes, output };
  return { kind: "verdict", signatures, allHold: run.status === 0, output };
}

/** pyhankoValidate runs pyHanko on a PDF: every signature's verdict, and whether all hold; no verdict (a crash) throws. */
export function pyhankoValidate(pdf: Buffer, roots: string[] = [], password?: string): { signatures: PyhankoSignature[]; allHold: boolean; output: string } {
  const outcome = pyhankoOutcome(pdf, roots, password === undefined ? {} : { password });
  if (outcome.kind !== "verdict") throw new Error(`pyHanko gave no verdict: ${outcome.output}`);
  return outcome;
}

/**
 * pyhankoLtv runs pyHanko's PAdES long-term validation (profile LT or LTA) offline, trusting
 * `roots` (PEM files): only what the file embeds may be used (test/helpers/pyhanko-ltv.py). An
 * encrypted file is opened with `password` ("" for an owner-password-only one).
 */
export function pyhankoLtv(pdf: Buffer, profile: "LT" | "LTA", roots: string[], password?: string): { ok: boolean; output: string } {
  const file = join(scratchDir("ltv"), "in.pdf");
  writeFileSync(file, pdf);
  const run = runPyhanko("pyhanko-ltv.py", [...(password === undefined ? [] : ["--password", password]), profile, file, ...roots]);
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
}

/** holdsInPyhanko is pyHanko's verdict on one signature, trust aside: intact, valid, and DocMDP (and diff analysis) satisfied. */
export function holdsInPyhanko(signature: PyhankoSignature): boolean {
  return signature.intact && signature.valid && signature.docmdpOk !== false && signature.modificationLevel !== "OTHER";
}

/**
 * PyhankoExpectation is what pyHanko must give on a hostile file: a verdict that a signature does
 * not hold ("refuses"), a verdict that all hold where Signet deliberately differs (`holds`, why),
 * or, recorded per class, no verdict: the exception it raises (`noVerdict` matches "Name: message") or
 * no end at all (`timesOut`). A crash never counts as agreement.
 */
export type PyhankoExpectation = "refuses" | { holds: string } | { noVerdict: RegExp; why: string } | { timesOut: string };

/** expectPyhanko runs pyHanko on a file and checks its outcome against the expectation recorded for the case. */
export function expectPyhanko(pdf: Buffer, expected: PyhankoExpectation, options: { roots?: string[]; timeoutMs?: number } = {}): PyhankoOutcome {
  const outcome = pyhankoOutcome(pdf, options.roots, options);
  if (expected === "refuses" || "holds" in expected) {
    expect(outcome.kind, `pyHanko must give a verdict\n${outcome.output}`).toBe("verdict");
    if (outcome.kind === "verdict")
      expect(outcome.allHold, `${expected === "refuses" ? "pyHanko must refuse" : expected.holds}\n${outcome.output}`).toBe(expected !== "refuses");
  } else if ("noVerdict" in expected) {
    expect(outcome.kind, `${expected.why}\n${outcome.output}`).toBe("no verdict");
    if (outcome.kind === "no verdict")
      expect(
        outcome.crashes.some((crash) => expected.noVerdict.test(crash.noVerdict)),
        `pyHanko's exception must be the one recorded (${expected.noVerdict})\n${outcome.output}`,
      ).toBe(true);
  } else expect(outcome.kind, `${expected.timesOut}\n${outcome.output}`).toBe("timed out");
  return outcome;
}
