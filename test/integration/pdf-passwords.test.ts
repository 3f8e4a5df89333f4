import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { signWithPyhanko } from "#test/helpers/other-signers.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { pdftotextWith, type QpdfCipher, qpdfCheckWith, qpdfEncrypt, qpdfShowEncryption } from "#test/helpers/pdf-passwords.ts";
import { holdsInPyhanko, pyhankoValidate } from "#test/helpers/signature-checks.ts";

// Encrypted input on sign and verify through the local server: files encrypted by qpdf, results
// checked by qpdf, poppler and pyHanko given the password (docs/api.md, "Passwords").
let api: LocalApi;
let key: string;
let plain: Buffer;

beforeAll(async () => {
  api = await startLocalApi("pdf-passwords", { SIGNET_TABLE: "signet-pdf-passwords" });
  key = await obtainKey(api, "passwords");
  plain = await makePdf(2);
}, 90_000);

afterAll(async () => {
  await api?.close();
});

const signBody = (document: Record<string, string>) => ({
  document,
  signer: { name: "Ada Lovelace", email: "ada@example.com" },
  auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
});

const sign = (pdf: Buffer, password?: string) =>
  api.postJson("/v1/sign", signBody({ base64: pdf.toString("base64"), ...(password === undefined ? {} : { password }) }), key);
const verify = (pdf: Buffer, password?: string) =>
  api.postJson("/v1/verify", { document: { base64: pdf.toString("base64"), ...(password === undefined ? {} : { password }) } });

/**
 * settle lets the event loop run after a synchronous tool (pyHanko runs through spawnSync): the
 * server has meanwhile closed the idle keep-alive connection, and fetch must see that before it
 * reuses the socket (else ECONNRESET).
 */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

/** sameWidth replaces `from` in a PDF by `to` padded with spaces to the same length (offsets stay right). */
function sameWidth(pdf: Buffer, from: RegExp, to: (match: string) => string): Buffer {
  const text = pdf.toString("latin1");
  const match = from.exec(text);
  if (!match) throw new Error(`${from} not in the file`);
  const replacement = to(match[0]);
  if (replacement.length > match[0].length) throw new Error("the replacement is longer than the original");
  return Buffer.from(text.replace(from, replacement.padEnd(match[0].length, " ")), "latin1");
}

describe("signing encrypted PDFs keeps their encryption", () => {
  it("signs an AES-256 file with its user password; qpdf, poppler, pyHanko and verify read it with the password", async () => {
    const encrypted = await qpdfEncrypt(plain, "user-pw", "owner-pw", "aes-256");
    const { status, json } = await sign(encrypted, "user-pw");
    expect(status, JSON.stringify(json)).toBe(200);
    const signed = Buffer.from(json.document.base64, "base64");
    expect(signed.subarray(0, encrypted.length).equals(encrypted)).toBe(true);
    expect(await qpdfCheckWith(signed, "user-pw")).toContain("No syntax or stream encoding errors");
    expect(await qpdfShowEncryption(signed, "user-pw")).toMatch(/R = 6[\s\S]*stream encryption method: AESv3/);
    // The certificate page is in the update, encrypted: readable with the password, not without.
    expect(await pdftotextWith(signed, "user-pw")).toContain("Ada Lovelace");
    expect(signed.subarray(encrypted.length).toString("latin1")).not.toContain("Ada Lovelace");
    const pyhanko = pyhankoValidate(signed, [], "user-pw");
    expect(pyhanko.signatures.map(holdsInPyhanko), pyhanko.output).toEqual([true]);
    await settle();
    const verified = await verify(signed, "user-pw");
    expect(verified.status, JSON.stringify(verified.json)).toBe(200);
    expect(verified.json.signatures[0]).toMatchObject({ integrity: "ok", modifiedAfter: false, signerName: "Ada Lovelace" });
  }, 60_000);

  it.each([
    ["AES-128", "aes-128", "user-pw", "owner-pw", "user-pw", "R = 4"],
    ["RC4 128-bit, opened with the owner password", "rc4-128", "user-pw", "owner-pw", "owner-pw", "R = 3"],
    ["RC4 40-bit (legacy, read only)", "rc4-40", "user-pw", "owner-pw", "user-pw", "R = 2"],
    ["an owner-password-only AES-256 file, without a password", "aes-256", "", "owner-pw", undefined, "R = 6"],
  ] as const)(
    "signs %s and pyHanko validates it",
    async (_name, cipher: QpdfCipher, user, owner, password, revision) => {
      const encrypted = await qpdfEncrypt(plain, user, owner, cipher);
      const { status, json } = await sign(encrypted, password);
      expect(status, JSON.stringify(json)).toBe(200);
      const signed = Buffer.from(json.document.base64, "base64");
      expect(await qpdfShowEncryption(signed, password ?? "")).toContain(revision);
      const pyhanko = pyhankoValidate(signed, [], password ?? "");
      expect(pyhanko.signatures.map(holdsInPyhanko), pyhanko.output).toEqual([true]);
      await settle();
      const verified = await verify(signed, password);
      expect(verified.json.signatures?.[0], JSON.stringify(verified.json)).toMatchObject({ integrity: "ok", modifiedAfter: false });
    },
    60_000,
  );

  it("verifies a file pyHanko signed encrypted, with the password", async () => {
    const encrypted = await qpdfEncrypt(plain, "user-pw", "owner-pw", "aes-256");
    const signed = signWithPyhanko(encrypted, { password: "user-pw" });
    await settle();
    const verified = await verify(signed, "user-pw");
    expect(verified.status, JSON.stringify(verified.json)).toBe(200);
    expect(verified.json.signatures).toEqual([expect.objectContaining({ field: "OtherSignature", integrity: "ok", modifiedAfter: false })]);
  }, 30_000);
});

describe("passwords that do not open the file, and hostile encryption", () => {
  it.each([
    ["no password", "ENCRYPTED_DOCUMENT", undefined],
    ["a wrong password", "WRONG_PASSWORD", "guess"],
  ] as const)("%s: sign and verify answer 422 %s naming document.password", async (_name, code, password) => {
    const encrypted = await qpdfEncrypt(plain, "user-pw", "owner-pw", "aes-256");
    for (const answer of [await sign(encrypted, password), await verify(encrypted, password)]) {
      expect(answer.status).toBe(422);
      expect(answer.json).toMatchObject({ code, details: [{ field: "document.password" }] });
    }
  });

  it("an encryption dictionary with a truncated /U is INVALID_DOCUMENT, whatever the password", async () => {
    const encrypted = await qpdfEncrypt(plain, "user-pw", "owner-pw", "aes-256");
    const broken = sameWidth(encrypted, /\/U <[0-9a-f]{96}>/i, (match) => `${match.slice(0, 20)}>`);
    const answer = await verify(broken, "user-pw");
    expect(answer.status).toBe(422);
    expect(answer.json).toMatchObject({ code: "INVALID_DOCUMENT", message: expect.stringMatching(/encryption dictionary is damaged \(\/O or \/U shorter/) });
  });

  it("a public-key (certificate) security handler is ENCRYPTED_DOCUMENT naming it", async () => {
    const encrypted = await qpdfEncrypt(plain, "user-pw", "owner-pw", "aes-256");
    const pubSec = sameWidth(encrypted, /\/CF << \/StdCF << [^>]*>> >> \/Filter \/Standard/, () => "/Filter/Adobe.PubSec");
    const answer = await sign(pubSec, "user-pw");
    expect(answer.status).toBe(422);
    expect(answer.json).toMatchObject({ code: "ENCRYPTED_DOCUMENT", message: expect.stringContaining("/Adobe.PubSec") });
  });

  it("a stream with a huge /Length in an encrypted file gets an answer, not a crash", async () => {
    const encrypted = await qpdfEncrypt(plain, "user-pw", "owner-pw", "aes-256");
    const huge = sameWidth(encrypted, /\/Length \d{3,}/, (match) => `/Length ${"9".repeat(match.length - 8)}`);
    for (const answer of [await sign(huge, "user-pw"), await verify(huge, "user-pw")]) {
      expect([200, 422], JSON.stringify(answer.json)).toContain(answer.status);
    }
  }, 30_000);

  it("an update appended in the clear to a signed encrypted file is seen as a modification", async () => {
    const encrypted = await qpdfEncrypt(plain, "user-pw", "owner-pw", "aes-256");
    const signed = Buffer.from((await sign(encrypted, "user-pw")).json.document.base64, "base64");
    const tampered = appendClearInfo(signed, "Changed in the clear");
    const answer = await verify(tampered, "user-pw");
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    expect(answer.json.signatures[0]).toMatchObject({ integrity: "ok", modifiedAfter: true });
  }, 30_000);
});

describe("POST /v1/protect and /v1/unprotect", () => {
  const protect = (body: Record<string, unknown>) => api.postJson("/v1/protect", body, key);
  const unprotect = (pdf: Buffer, password?: string) =>
    api.postJson("/v1/unprotect", { document: { base64: pdf.toString("base64"), ...(password === undefined ? {} : { password }) } }, key);
  const pdfOf = (answer: { json: Record<string, any> }) => Buffer.from(answer.json.document.base64 as string, "base64");

  it("protects with AES-256, both passwords and a permission; unprotect with the owner password gives a plain file back", async () => {
    const answer = await protect({
      document: { base64: plain.toString("base64") },
      userPassword: "open",
      ownerPassword: "owner",
      permissions: { copy: false },
    });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    const protectedPdf = pdfOf(answer);
    const shown = await qpdfShowEncryption(protectedPdf, "open");
    expect(shown).toMatch(/R = 6[\s\S]*extract for any purpose: not allowed[\s\S]*print high resolution: allowed[\s\S]*file encryption method: AESv3/);
    expect(await qpdfShowEncryption(protectedPdf, "")).toMatch(/[Ii]ncorrect password|invalid password/);
    expect(await qpdfCheckWith(protectedPdf, "owner")).toContain("No syntax or stream encoding errors");
    expect(await pdftotextWith(protectedPdf, "open")).toContain("Contract page 1");
    expect(await pdftotextWith(protectedPdf, "wrong")).not.toContain("Contract page 1");

    const opened = await unprotect(protectedPdf, "owner");
    expect(opened.status, JSON.stringify(opened.json)).toBe(200);
    expect(await qpdfShowEncryption(pdfOf(opened))).toContain("File is not encrypted");
    expect(await pdftotextWith(pdfOf(opened), "")).toContain("Contract page 2");
    // The user password may remove the protection only where the permissions allow changes (they do here).
    expect((await unprotect(protectedPdf, "open")).status).toBe(200);
    expect((await unprotect(protectedPdf, "wrong")).json).toMatchObject({ code: "WRONG_PASSWORD" });
  }, 30_000);

  it("the user password of a file that denies changes cannot remove its protection; the owner password can", async () => {
    const locked = pdfOf(
      await protect({ document: { base64: plain.toString("base64") }, userPassword: "open", ownerPassword: "owner", permissions: { modify: false } }),
    );
    const refused = await unprotect(locked, "open");
    expect(refused.status).toBe(422);
    expect(refused.json).toMatchObject({ code: "ENCRYPTED_DOCUMENT", message: expect.stringMatching(/owner password/) });
    expect((await unprotect(locked, "owner")).status).toBe(200);
  }, 30_000);

  it("an owner-password-only file from qpdf unprotects without a password", async () => {
    const ownerOnly = await qpdfEncrypt(plain, "", "owner-pw", "aes-256");
    const opened = await unprotect(ownerOnly);
    expect(opened.status, JSON.stringify(opened.json)).toBe(200);
    expect(await qpdfShowEncryption(pdfOf(opened))).toContain("File is not encrypted");
  }, 30_000);

  it("a signed input is 409 WOULD_INVALIDATE_SIGNATURES naming the signature; dropSignatures removes it and says so", async () => {
    const signed = pdfOf(await sign(plain));
    const document = { base64: signed.toString("base64") };
    const refused = await protect({ document, ownerPassword: "owner" });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ code: "WOULD_INVALIDATE_SIGNATURES", message: expect.stringContaining("Signet_1") });
    expect((await api.postJson("/v1/unprotect", { document }, key)).status).toBe(409);
    const dropped = await protect({ document, ownerPassword: "owner", dropSignatures: true });
    expect(dropped.status, JSON.stringify(dropped.json)).toBe(200);
    expect(dropped.json.droppedSignatures).toEqual(["Signet_1"]);
    const report = await verify(pdfOf(dropped));
    expect(report.json.signatures, JSON.stringify(report.json)).toEqual([]);
  }, 30_000);

  it("refuses the same user and owner password (400)", async () => {
    const answer = await protect({ document: { base64: plain.toString("base64") }, userPassword: "same", ownerPassword: "same" });
    expect(answer.status).toBe(400);
    expect(answer.json.details).toEqual([expect.objectContaining({ field: "userPassword" })]);
  });
});

/** appendClearInfo appends an incremental update whose new /Info holds an unencrypted string (what an attacker or a naive tool writes). */
function appendClearInfo(pdf: Buffer, title: string): Buffer {
  const text = pdf.toString("latin1");
  const startxref = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)![1]);
  const trailerKeys = /\/Root \d+ 0 R|\/Encrypt \d+ 0 R|\/ID \[[^\]]*\]|\/Size \d+/g;
  const keys = Object.fromEntries([...text.matchAll(trailerKeys)].map((match) => [match[0].split(/[ [<]/)[0], match[0]]));
  const size = Number(keys["/Size"]!.split(" ")[1]);
  const body = `\n${size} 0 obj\n<< /Title (${title}) >>\nendobj\n`;
  const objectAt = pdf.length + 1;
  const xrefAt = pdf.length + body.length;
  const xref = `xref\n${size} 1\n${String(objectAt).padStart(10, "0")} 00000 n \ntrailer\n<< /Size ${size + 1} ${keys["/Root"]} ${keys["/Encrypt"]} ${keys["/ID"]} /Info ${size} 0 R /Prev ${startxref} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.concat([pdf, Buffer.from(body + xref, "latin1")]);
}
