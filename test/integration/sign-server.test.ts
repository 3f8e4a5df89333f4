import { X509Certificate } from "node:crypto";
import * as pkijs from "pkijs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oids } from "#domain/pki/oids.ts";
import { buildDocx, p, run } from "#test/helpers/docx-builder.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { pdfPageCount, pdfText } from "#test/helpers/pdf-tools.ts";
import * as cases from "#test/helpers/real-world-pdfs.ts";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PDF, type PdfDict } from "@libpdf/core";
import { AUDIT_RECORD_KEY } from "#domain/signing/pades-signer.ts";
import { signWithPyhanko } from "#test/helpers/other-signers.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { startLoopbackTsa, type LoopbackTsa } from "#test/helpers/pki/loopback-tsa.ts";
import { scratchDir } from "#test/helpers/scratch.ts";
import { cmsOf, expectSignedPdf, holdsInPyhanko, pyhankoValidate } from "#test/helpers/signature-checks.ts";

let tsa: LoopbackTsa;
let api: LocalApi;
let key: string;
let input: Buffer;

beforeAll(async () => {
  tsa = await startLoopbackTsa();
  // Config is read at import: startLocalApi sets the environment (a TSA on loopback: PAdES B-T) before it imports the server.
  api = await startLocalApi("sign-server", { SIGNET_TABLE: "signet-sign-server", SIGNET_CONVERSION_MODE: "oneshot", SIGNET_TSA_URL: tsa.url });
  key = await obtainKey(api, "sign");
  input = await makePdf(3);
}, 90_000);

afterAll(async () => {
  await api?.close();
  await tsa?.close();
});

const post = (path: string, body: unknown, auth = true) => api.postJson(path, body, auth ? key : undefined);

const signBody = (document: { base64: string }) => ({
  document,
  signer: { name: "Ada Lovelace", email: "ada@example.com", ip: "203.0.113.7", userAgent: "Mozilla/5.0" },
  auditTrail: [
    { type: "ready", timestamp: "2026-11-22T09:55:00Z" },
    { type: "submit", timestamp: "2026-11-22T09:58:00Z" },
  ],
  eventId: "evt_http",
});

describe("sign and verify over HTTP", () => {
  it("signs a PDF PAdES B-T with the loopback TSA; verify reports it intact and trusted", async () => {
    const before = tsa.requests;
    const { status, json } = await post("/v1/sign", signBody({ base64: input.toString("base64") }));
    expect(status).toBe(200);
    expect(json.document.contentType).toBe("application/pdf");
    const signed = Buffer.from(json.document.base64 as string, "base64");
    expect(tsa.requests).toBe(before + 1);
    const [signature] = await expectSignedPdf(signed, { input });
    expect(signature).toMatchObject({ type: "ETSI.CAdES.detached", valid: true, totalDocumentSigned: true });

    // The CMS carries the timestamp token as an unsigned attribute.
    const signedData = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(cmsOf(signed)).content });
    expect(signedData.signerInfos[0]!.unsignedAttrs?.attributes.map((attribute) => attribute.type)).toEqual([oids.signatureTimeStampToken]);
    expect(await pdfText(signed, { first: 4 })).toContain("B-T");

    const verified = await post("/v1/verify", { document: { base64: json.document.base64 } }, false);
    expect(verified.status).toBe(200);
    expect(verified.json).toMatchObject({ valid: true, document: { pages: 4 } });
    expect(verified.json.signatures[0]).toMatchObject({
      integrity: "ok",
      trusted: true,
      modifiedAfter: false,
      modificationLevel: "none",
      changesPermitted: true,
      level: "B-T",
      documentTimestamp: false,
    });
    expect(verified.json.signatures[0].timestamp).toMatchObject({ imprintValid: true, authority: "CN=Signet Test TSA" });
    expect(verified.json.signer).toMatchObject({ name: "Ada Lovelace", email: "ada@example.com" });
  }, 30_000);

  it("publishes the signing certificate on GET /v1/verify/key", async () => {
    const response = await fetch(`${api.url}/v1/verify/key`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, string>;
    expect(body.certificate).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(body.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(body.algorithm).toBe("RSA-3072 with SHA-256");
    expect(body.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    // The local identity is a signing certificate issued by a local root CA, published for trust.
    expect(body.issuer).toBe("CN=Signet Local Root CA");
    expect(new X509Certificate(body.certificate!).checkIssued(new X509Certificate(body.rootCertificate!))).toBe(true);
    expect(JSON.stringify(body)).not.toMatch(/PRIVATE KEY/);
  });

  it("signs DOCX input after converting it with LibreOffice", async () => {
    const docx = buildDocx({ body: p(run("Statement of work for the DOCX signing test")) });
    const { status, json } = await post("/v1/sign", signBody({ base64: docx.toString("base64") }));
    expect(status).toBe(200);
    const signed = Buffer.from(json.document.base64 as string, "base64");
    // The input is a DOCX: LibreOffice's PDF is the signed prefix, not known here.
    await expectSignedPdf(signed);
    expect(await pdfText(signed, { first: 1, last: 1 })).toContain("Statement of work");
    expect(await pdfPageCount(signed)).toBe(2);
  }, 90_000);

  it("level B-B skips the configured TSA; B-LT with this TSA (its token stops before a root) is 422 LEVEL_UNAVAILABLE; timestamp needs a signed PDF", async () => {
    const before = tsa.requests;
    const plain = await post("/v1/sign", { ...signBody({ base64: input.toString("base64") }), level: "B-B" });
    expect(plain.status).toBe(200);
    expect(tsa.requests).toBe(before);
    const verified = await post("/v1/verify", { document: { base64: plain.json.document.base64 } }, false);
    expect(verified.json.signatures[0]).toMatchObject({ level: "B-B" });
    expect(verified.json.signatures[0].timestamp).toBeUndefined();

    const lt = await post("/v1/sign", { ...signBody({ base64: input.toString("base64") }), level: "B-LT" });
    expect(lt.status).toBe(422);
    expect(lt.json).toMatchObject({
      code: "LEVEL_UNAVAILABLE",
      message: expect.stringMatching(/^B-LT needs complete certificate chains, but the chain of "CN=Signet Test TSA"/),
    });

    const unsigned = await post("/v1/timestamp", { document: { base64: input.toString("base64") } });
    expect(unsigned.status).toBe(422);
    expect(unsigned.json.code).toBe("INVALID_DOCUMENT");
    expect((await post("/v1/timestamp", { document: { base64: input.toString("base64") } }, false)).status).toBe(401);
  }, 60_000);

  it.each([
    ["unknown signer member", { signer: { name: "Ada", email: "ada@example.com", role: "x" } }, 400, "VALIDATION_ERROR"],
    ["signer.ip not an IP", { signer: { name: "Ada", email: "ada@example.com", ip: "999.1.1.1" } }, 400, "VALIDATION_ERROR"],
    ["timestamp not ISO-8601", { auditTrail: [{ type: "submit", timestamp: "yesterday" }] }, 400, "VALIDATION_ERROR"],
    ["unknown level", { level: "B-X" }, 400, "VALIDATION_ERROR"],
    ["no submit event", { auditTrail: [{ type: "ready", timestamp: "2026-11-22T09:55:00Z" }] }, 422, "MISSING_SUBMIT_EVENT"],
    ["broken PDF", { document: { base64: Buffer.from("%PDF-1.7\ngarbage").toString("base64") } }, 422, "INVALID_DOCUMENT"],
  ])("%s -> %i %s", async (_name, change, status, code) => {
    const answer = await post("/v1/sign", { ...signBody({ base64: input.toString("base64") }), ...change });
    expect(answer.status).toBe(status);
    expect(answer.json.code).toBe(code);
  });

  it("signs a PDF pyHanko signed before: both signatures hold in pyHanko (the identity's root trusted); the record and stamp list the earlier one", async () => {
    // A classic xref table: pyHanko keeps the table format in its own update (see makePdf).
    const presigned = signWithPyhanko(await makePdf(3, { classicXref: true }));
    const { status, json } = await post("/v1/sign", { ...signBody({ base64: presigned.toString("base64") }), level: "B-B" });
    expect(status, JSON.stringify(json)).toBe(200);
    const signed = Buffer.from(json.document.base64 as string, "base64");
    const key = (await (await fetch(`${api.url}/v1/verify/key`)).json()) as { rootCertificate: string };
    const root = join(scratchDir("sign-server-root"), "root.pem");
    writeFileSync(root, key.rootCertificate);
    const report = pyhankoValidate(signed, [root]);
    expect(report.signatures, report.output).toHaveLength(2);
    expect(report.allHold, report.output).toBe(true);
    for (const signature of report.signatures) expect(holdsInPyhanko(signature), report.output).toBe(true);

    const fields = (await PDF.load(signed))
      .getForm()!
      .getFields()
      .filter((field) => field.type === "signature");
    const dict = (fields.at(-1) as unknown as { getSignatureDict(): PdfDict }).getSignatureDict();
    const record = JSON.parse(dict.getString(AUDIT_RECORD_KEY)!.asString()) as { earlierSignatures: unknown };
    expect(record.earlierSignatures).toEqual([
      { field: expect.any(String), signer: expect.stringMatching(/\S/), claimedTime: expect.any(String), documentTimestamp: false, intact: true },
    ]);
    expect((await pdfText(signed, { first: 3 })).replace(/\s+/g, "")).toContain("Earliersignatures:1,listedintherecord;checkthemwith/v1/verify");
  }, 60_000);

  it("refuses to sign without a key", async () => {
    const answer = await post("/v1/sign", signBody({ base64: input.toString("base64") }), false);
    expect(answer.status).toBe(401);
  });

  it("rewrites an unsigned damaged PDF once and says so in Signet-Input-Rewritten, exposed to browsers", async () => {
    const damaged = cases.damaged("startxref-off-by-one").bytes;
    const response = await fetch(`${api.url}/v1/sign`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}`, origin: "https://app.example.com" },
      body: JSON.stringify({ ...signBody({ base64: damaged.toString("base64") }), level: "B-B" }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("signet-input-rewritten")).toBe("repaired cross-reference");
    expect(response.headers.get("access-control-expose-headers") ?? "").toContain("Signet-Input-Rewritten");
    const signed = Buffer.from(((await response.json()) as { document: { base64: string } }).document.base64, "base64");
    expect(await pdfPageCount(signed)).toBe(3);
  });
});
