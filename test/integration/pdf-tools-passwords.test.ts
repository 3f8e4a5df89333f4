// document.password on the PDF tools through the local server (issue 40, item 4): an AES-256
// user-password file made by qpdf is stamped (the output still encrypted, read by qpdf and poppler
// with the password), its metadata read and written, merged with a plain file (unencrypted output);
// a wrong password is 422 WRONG_PASSWORD, an owner-password-only file opens without one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { pdftotextWith, qpdfEncrypt, qpdfShowEncryption } from "#test/helpers/pdf-passwords.ts";
import { pdfText } from "#test/helpers/pdf-tools.ts";

let api: LocalApi;
let key: string;
let plain: Buffer;
let encrypted: Buffer;

beforeAll(async () => {
  api = await startLocalApi("pdf-tools-passwords", { SIGNET_TABLE: "signet-pdf-tools-passwords" });
  key = await obtainKey(api, "tools-passwords");
  plain = await makePdf(2);
  encrypted = await qpdfEncrypt(plain, "user-pw", "owner-pw", "aes-256");
}, 90_000);

afterAll(async () => {
  await api?.close();
});

const doc = (pdf: Buffer, password?: string) => ({ base64: pdf.toString("base64"), ...(password === undefined ? {} : { password }) });
const pdfOf = (json: Record<string, any>) => Buffer.from(json.document.base64, "base64");
const stampText = { text: { value: "APPROVED BY LEGAL" }, pages: "1" };

describe("the PDF tools open encrypted input with document.password", () => {
  it("stamps an AES-256 user-password file and keeps it encrypted: qpdf and pdftotext read the stamp with the password", async () => {
    const { status, json } = await api.postJson("/v1/stamp", { document: doc(encrypted, "user-pw"), ...stampText }, key);
    expect(status, JSON.stringify(json)).toBe(200);
    const stamped = pdfOf(json);
    expect(await qpdfShowEncryption(stamped, "user-pw")).toMatch(/R = 6[\s\S]*Supplied password is user password[\s\S]*stream encryption method: AESv3/);
    expect(await qpdfShowEncryption(stamped, "")).toMatch(/Incorrect password supplied/);
    expect(await pdftotextWith(stamped, "user-pw")).toContain("APPROVED BY LEGAL");
    expect(stamped.toString("latin1")).not.toContain("APPROVED");
  }, 30_000);

  it("reads and writes the metadata of the encrypted file; the written file stays encrypted", async () => {
    const read = await api.postJson("/v1/metadata", { document: doc(encrypted, "user-pw") }, key);
    expect(read.status, JSON.stringify(read.json)).toBe(200);
    expect(read.json.metadata).toHaveProperty("title");
    const written = await api.postJson("/v1/metadata", { document: doc(encrypted, "user-pw"), set: { title: "Sealed contract" } }, key);
    expect(written.status, JSON.stringify(written.json)).toBe(200);
    expect(written.json.metadata.title).toBe("Sealed contract");
    expect(await qpdfShowEncryption(pdfOf(written.json), "user-pw")).toMatch(/R = 6/);
  }, 30_000);

  it("writes the metadata of a signed encrypted file as an encrypted incremental update that verify still calls intact", async () => {
    const signing = await api.postJson(
      "/v1/sign",
      {
        document: doc(encrypted, "user-pw"),
        signer: { name: "Ada Lovelace", email: "ada@example.com" },
        auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
      },
      key,
    );
    expect(signing.status, JSON.stringify(signing.json)).toBe(200);
    const signed = pdfOf(signing.json);
    const written = await api.postJson("/v1/metadata", { document: doc(signed, "user-pw"), set: { title: "Sealed and signed" } }, key);
    expect(written.status, JSON.stringify(written.json)).toBe(200);
    expect(written.json.incremental).toBe(true);
    const updated = pdfOf(written.json);
    expect(updated.subarray(0, signed.length).equals(signed)).toBe(true);
    expect(updated.subarray(signed.length).toString("latin1")).not.toContain("Sealed and signed");
    expect(await qpdfShowEncryption(updated, "user-pw")).toMatch(/R = 6/);
    const verified = await api.postJson("/v1/verify", { document: doc(updated, "user-pw") });
    expect(verified.status, JSON.stringify(verified.json)).toBe(200);
    expect(verified.json.signatures[0]).toMatchObject({ integrity: "ok" });
  }, 30_000);

  it("merges an encrypted and a plain file into an unencrypted PDF", async () => {
    const { status, json } = await api.postJson("/v1/merge", { documents: [{ document: doc(encrypted, "user-pw") }, { document: doc(plain) }] }, key);
    expect(status, JSON.stringify(json)).toBe(200);
    const merged = pdfOf(json);
    expect(await qpdfShowEncryption(merged)).toMatch(/File is not encrypted/);
    const text = await pdfText(merged);
    expect(text.match(/Contract page 1/g)).toHaveLength(2);
  }, 30_000);

  it.each([
    ["stamp", "/v1/stamp", (document: object) => ({ document, ...stampText })],
    ["metadata", "/v1/metadata", (document: object) => ({ document })],
    ["merge", "/v1/merge", (document: object) => ({ documents: [{ document }, { document: doc(plain) }] })],
    ["split", "/v1/split", (document: object) => ({ document, every: 1 })],
    ["pages", "/v1/pages", (document: object) => ({ document, operations: [{ op: "select", pages: "2" }] })],
  ])("%s: a wrong password is 422 WRONG_PASSWORD, none is 422 ENCRYPTED_DOCUMENT", async (_name, path, body) => {
    const wrong = await api.postJson(path, body(doc(encrypted, "not-it")), key);
    expect([wrong.status, wrong.json.code], JSON.stringify(wrong.json)).toEqual([422, "WRONG_PASSWORD"]);
    const none = await api.postJson(path, body(doc(encrypted)), key);
    expect([none.status, none.json.code], JSON.stringify(none.json)).toEqual([422, "ENCRYPTED_DOCUMENT"]);
    const member = path === "/v1/merge" ? "documents.0.document.password" : "document.password";
    expect(wrong.json.details, "the details name the input's password").toEqual([{ field: member, issue: "does not open the PDF" }]);
  });

  it("a file whose permissions deny changes needs its owner password to be stamped or merged", async () => {
    const locked = await qpdfEncrypt(plain, "user-pw", "owner-pw", "aes-256", ["--modify=none"]);
    for (const body of [{ document: doc(locked, "user-pw"), ...stampText }, { documents: [{ document: doc(locked, "user-pw") }, { document: doc(plain) }] }]) {
      const path = "documents" in body ? "/v1/merge" : "/v1/stamp";
      const refused = await api.postJson(path, body, key);
      expect(refused.json, path).toMatchObject({ code: "ENCRYPTED_DOCUMENT", message: expect.stringMatching(/owner password/) });
    }
    const owner = await api.postJson("/v1/merge", { documents: [{ document: doc(locked, "owner-pw") }, { document: doc(plain) }] }, key);
    expect(owner.status, JSON.stringify(owner.json)).toBe(200);
  }, 30_000);

  it("opens an owner-password-only file without a password: stamp keeps it encrypted, split writes plain parts", async () => {
    const ownerOnly = await qpdfEncrypt(plain, "", "owner-pw", "aes-256");
    const stamped = await api.postJson("/v1/stamp", { document: doc(ownerOnly), ...stampText }, key);
    expect(stamped.status, JSON.stringify(stamped.json)).toBe(200);
    expect(await qpdfShowEncryption(pdfOf(stamped.json))).toMatch(/R = 6/);
    expect(await pdftotextWith(pdfOf(stamped.json), "")).toContain("APPROVED BY LEGAL");
    const split = await fetch(`${api.url}/v1/split`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ document: doc(ownerOnly), every: 1 }),
    });
    expect(split.status, await split.clone().text()).toBe(200);
  }, 30_000);
});
