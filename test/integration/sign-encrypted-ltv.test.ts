// B-LT, B-LTA and POST /v1/timestamp on encrypted PDFs, end to end on the local server (its own
// identity and CRL, openssl ts on loopback as the TSA, as crl-server.test.ts): the DSS updates and the
// document timestamp are encrypted with the document's key (the timestamp's /Contents in the clear),
// and qpdf, pyHanko's offline long-term validation and verify read them with the password.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { type QpdfCipher, qpdfCheckWith, qpdfEncrypt, qpdfShowEncryption } from "#test/helpers/pdf-passwords.ts";
import { startLoopbackTsa, type LoopbackTsa } from "#test/helpers/pki/loopback-tsa.ts";
import { scratchDir } from "#test/helpers/scratch.ts";
import { holdsInPyhanko, pyhankoLtv, pyhankoValidate } from "#test/helpers/signature-checks.ts";

let tsa: LoopbackTsa;
let api: LocalApi;
let key: string;
let plain: Buffer;
let crl: Buffer;
let roots: string[];

beforeAll(async () => {
  tsa = await startLoopbackTsa({ selfSigned: true });
  api = await startLocalApi("encrypted-ltv", { SIGNET_TABLE: "signet-encrypted-ltv", SIGNET_CONVERSION_MODE: "oneshot", SIGNET_TSA_URL: tsa.url });
  key = await obtainKey(api, "encrypted-ltv");
  plain = await makePdf(2);
  const dir = scratchDir("encrypted-ltv");
  const published = (await (await fetch(`${api.url}/v1/verify/key`)).json()) as { rootCertificate: string };
  writeFileSync(join(dir, "root.pem"), published.rootCertificate);
  roots = [join(dir, "root.pem"), tsa.certificatePem];
  crl = Buffer.from(await (await fetch(`${api.url}/v1/verify/crl`)).arrayBuffer());
}, 120_000);

afterAll(async () => {
  await api?.close();
  await tsa?.close();
});

/** Files: an AES-256 file opened with its user password, and an RC4-128 owner-password-only file opened without one. */
const FILES = {
  "AES-256 with a user password": { cipher: "aes-256", user: "user-pw", password: "user-pw", revision: "R = 6" },
  "RC4-128, owner password only": { cipher: "rc4-128", user: "", password: undefined, revision: "R = 3" },
} as const satisfies Record<string, { cipher: QpdfCipher; user: string; password: string | undefined; revision: string }>;
type FileName = keyof typeof FILES;

const encrypted = (name: FileName) => qpdfEncrypt(plain, FILES[name].user, "owner-pw", FILES[name].cipher);
const signed = new Map<string, Promise<{ input: Buffer; output: Buffer }>>();

/** signAt signs a file at a level through the server (once per file and level: the renewal test reuses a B-LT one). */
function signAt(name: FileName, level: "B-LT" | "B-LTA"): Promise<{ input: Buffer; output: Buffer }> {
  let pending = signed.get(`${name} ${level}`);
  if (!pending) {
    pending = (async () => {
      const input = await encrypted(name);
      const answer = await api.postJson(
        "/v1/sign",
        {
          document: documentOf(input, FILES[name].password),
          signer: { name: "Ada Lovelace", email: "ada@example.com" },
          auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
          level,
        },
        key,
      );
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      return { input, output: pdfOf(answer) };
    })();
    signed.set(`${name} ${level}`, pending);
  }
  return pending;
}
const documentOf = (pdf: Buffer, password: string | undefined) => ({ base64: pdf.toString("base64"), ...(password === undefined ? {} : { password }) });
const pdfOf = (answer: { json: Record<string, any> }) => Buffer.from(answer.json.document.base64 as string, "base64");

/** settle lets the server close an idle keep-alive connection while pyHanko (synchronous) held the event loop (crl-server.test.ts). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

/**
 * expectEncryptedLongTerm checks an output as the independent tools read it with the password: the
 * input kept as a prefix, still encrypted with the same cipher, qpdf clean, the CRL not in the clear
 * (the DSS streams are written uncompressed: only the encryption hides it), pyHanko's offline
 * PAdES-LT or -LTA validation holds (it reads the DSS and the document timestamp decrypted), and
 * verify agrees.
 */
async function expectEncryptedLongTerm(output: Buffer, input: Buffer, name: FileName, profile: "LT" | "LTA") {
  const { password, revision } = FILES[name];
  expect(output.subarray(0, input.length).equals(input)).toBe(true);
  expect(await qpdfShowEncryption(output, password ?? "")).toContain(revision);
  expect(await qpdfCheckWith(output, password ?? "")).toContain("No syntax or stream encoding errors");
  expect(output.includes(crl), "the CRL is in the file in the clear").toBe(false);
  const ltv = pyhankoLtv(output, profile, roots, password ?? "");
  expect(ltv.ok, ltv.output).toBe(true);
  if (profile === "LTA") {
    // The long-term validation judges the signatures; this also runs pyHanko's difference analysis after the document timestamp.
    const analysed = pyhankoValidate(output, roots, password ?? "");
    expect(analysed.signatures.map(holdsInPyhanko), analysed.output).toEqual([true, true]);
  }
  await settle();
  const verified = await api.postJson("/v1/verify", { document: documentOf(output, password) });
  expect(verified.status, JSON.stringify(verified.json)).toBe(200);
  expect(verified.json.valid, verified.json.reason).toBe(true);
  return verified.json.signatures as Record<string, unknown>[];
}

describe("long-term levels on encrypted PDFs keep the encryption", () => {
  it.each([
    ["AES-256 with a user password", "B-LT"],
    ["AES-256 with a user password", "B-LTA"],
    ["RC4-128, owner password only", "B-LT"],
    ["RC4-128, owner password only", "B-LTA"],
  ] as const)(
    "%s at %s: the DSS (and timestamp) encrypted; qpdf, pyHanko and verify read them",
    async (name, level) => {
      const { input, output } = await signAt(name, level);
      const signatures = await expectEncryptedLongTerm(output, input, name, level === "B-LT" ? "LT" : "LTA");
      expect(signatures[0]).toMatchObject({ level, documentTimestamp: false, integrity: "ok", trusted: true, validationData: { offline: true } });
      if (level === "B-LTA") expect(signatures[1]).toMatchObject({ documentTimestamp: true, integrity: "ok", validationData: { offline: true } });
      else expect(signatures).toHaveLength(1);
    },
    40_000,
  );

  it("POST /v1/timestamp renews an encrypted B-LT file to B-LTA with its password; without one it is 422 ENCRYPTED_DOCUMENT", async () => {
    const name = "AES-256 with a user password";
    const { input, output: signed } = await signAt(name, "B-LT");
    const refused = await api.postJson("/v1/timestamp", { document: documentOf(signed, undefined) }, key);
    expect(refused.status).toBe(422);
    expect(refused.json).toMatchObject({ code: "ENCRYPTED_DOCUMENT", details: [{ field: "document.password" }] });
    const answer = await api.postJson("/v1/timestamp", { document: documentOf(signed, "user-pw") }, key);
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    const renewed = pdfOf(answer);
    expect(renewed.subarray(0, signed.length).equals(signed)).toBe(true);
    const signatures = await expectEncryptedLongTerm(renewed, input, name, "LTA");
    expect(signatures).toMatchObject([
      { level: "B-LTA", documentTimestamp: false, validationData: { offline: true } },
      { documentTimestamp: true, integrity: "ok", validationData: { offline: true } },
    ]);
  }, 40_000);

  it("a second signature on an encrypted signed file leaves the first intact: its update keeps the file's /Encrypt and rewrites no signed object", async () => {
    const { output: signed } = await signAt("AES-256 with a user password", "B-LT");
    const answer = await api.postJson(
      "/v1/sign",
      {
        document: documentOf(signed, "user-pw"),
        signer: { name: "Grace Hopper", email: "grace@example.com" },
        auditTrail: [{ type: "submit", timestamp: "2026-11-22T10:58:00Z" }],
        level: "B-T",
      },
      key,
    );
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    const twice = pdfOf(answer);
    const analysed = pyhankoValidate(twice, roots, "user-pw");
    expect(analysed.signatures.map(holdsInPyhanko), analysed.output).toEqual([true, true]);
    await settle();
    const verified = await api.postJson("/v1/verify", { document: documentOf(twice, "user-pw") });
    expect(verified.json.valid, verified.json.reason).toBe(true);
    expect(verified.json.signatures).toMatchObject([
      { field: "Signet_1", integrity: "ok", changesPermitted: true },
      { field: "Signet_2", integrity: "ok", changesPermitted: true },
    ]);
  }, 40_000);
});
