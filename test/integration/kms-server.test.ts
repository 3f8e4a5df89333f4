import { readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { startLoopbackTsa, type LoopbackTsa } from "#test/helpers/pki/loopback-tsa.ts";
import { checkCrl } from "#test/helpers/pki/openssl.ts";
import { scratchDir } from "#test/helpers/scratch.ts";
import { pyhankoLtv, pyhankoValidate } from "#test/helpers/signature-checks.ts";

let tsa: LoopbackTsa;
let api: LocalApi;
let key: string;
let input: Buffer;
let dir: string;
let published: { certificate: string; rootCertificate: string; publicKey: string };

beforeAll(async () => {
  tsa = await startLoopbackTsa({ selfSigned: true });
  api = await startLocalApi("kms-server", {
    SIGNET_KMS_KEY_ID: "local",
    SIGNET_TABLE: "signet-kms-server",
    SIGNET_CONVERSION_MODE: "oneshot",
    SIGNET_TSA_URL: tsa.url,
  });
  key = await obtainKey(api, "kms");
  input = await makePdf(2);
  dir = scratchDir("kms-server");
  published = (await (await fetch(`${api.url}/v1/verify/key`)).json()) as typeof published;
  writeFileSync(join(dir, "root.pem"), published.rootCertificate);
}, 120_000);

afterAll(async () => {
  await api?.close();
  await tsa?.close();
});

const signBody = (level: string) => ({
  document: { base64: input.toString("base64") },
  signer: { name: "Ada Lovelace", email: "ada@example.com" },
  auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
  level,
});

async function sign(level: string): Promise<Buffer> {
  // pyHanko runs synchronously in this process, blocking the server's event loop too: let the
  // keep-alive timers that expired meanwhile close the idle connection before it is reused
  // (otherwise a validation slower than the 5 s keep-alive ends in ECONNRESET on the next request).
  await new Promise((resolve) => setTimeout(resolve, 20));
  const { status, json } = await api.postJson("/v1/sign", signBody(level), key);
  expect(status, JSON.stringify(json)).toBe(200);
  return Buffer.from(json.document.base64 as string, "base64");
}

/** ltvValidate is pyHanko's PAdES long-term validation, offline, trusting the KMS root and the TSA (test/helpers/pyhanko-ltv.py). */
function ltvValidate(pdf: Buffer, profile: "LT" | "LTA"): { ok: boolean; output: string } {
  return pyhankoLtv(pdf, profile, [join(dir, "root.pem"), tsa.certificatePem]);
}

describe("the local server with SIGNET_KMS_KEY_ID=local", () => {
  it("keeps the stand-in's keys in the data folder (0600) and the issued chain in identity-chain.pem; the key never reaches the identity folder", () => {
    const kmsDir = join(api.dataDir, "kms");
    const files = readdirSync(kmsDir);
    expect(files.filter((file) => file.endsWith(".json") && file !== "signet-keys.json")).toHaveLength(2);
    for (const file of files) expect(statSync(join(kmsDir, file)).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(api.dataDir, "identity"))).toEqual(["identity-chain.pem"]);
  });

  it("GET /v1/verify/key says the key is in KMS (its ARN), issued by Signet's own root, and what readers show", async () => {
    const answer = (await (await fetch(`${api.url}/v1/verify/key`)).json()) as Record<string, unknown>;
    expect(answer).toMatchObject({
      algorithm: "RSA-3072 with SHA-256",
      key: { location: "kms", keyId: expect.stringMatching(/^arn:aws:kms:us-east-1:\d{12}:key\//) },
      issuedBy: "signet",
      attestedHardwareKey: false,
      chain: [published.rootCertificate],
    });
    expect(answer.readers).toMatch(/never leaves AWS KMS/);
    expect(answer.readers).toMatch(/only where someone installed that root/);
    expect(answer.readers).toMatch(/Adobe Approved Trust List/);
  });

  it.each(["B-B", "B-T"])(
    "%s: signed in the stand-in (one Sign per signature), pyHanko validates it and trusts the KMS root",
    async (level) => {
      const before = api.standIns.kms!.standIn.signCalls();
      const signed = await sign(level);
      expect(api.standIns.kms!.standIn.signCalls() - before).toBe(1);
      const report = pyhankoValidate(signed, [join(dir, "root.pem")]);
      expect(report.allHold, report.output).toBe(true);
      expect(report.signatures).toMatchObject([{ intact: true, valid: true, trusted: true, subFilter: "/ETSI.CAdES.detached" }]);
    },
    60_000,
  );

  it("B-LT: the DSS holds the CRL the KMS root signed; pyHanko's offline LT validation passes", async () => {
    const signed = await sign("B-LT");
    expect(signed.toString("latin1")).toMatch(/\/CRLs/);
    const ltv = ltvValidate(signed, "LT");
    expect(ltv.ok, ltv.output).toBe(true);
  }, 60_000);

  it("B-LTA: a document timestamp follows; pyHanko's offline LTA validation passes and /v1/verify agrees", async () => {
    const signed = await sign("B-LTA");
    const ltv = ltvValidate(signed, "LTA");
    expect(ltv.ok, ltv.output).toBe(true);
    const verified = await api.postJson("/v1/verify", { document: { base64: signed.toString("base64") } });
    expect(verified.json.valid, verified.json.reason).toBe(true);
    expect(verified.json.signatures).toMatchObject([{ level: "B-LTA", trusted: true, validationData: { offline: true } }, { documentTimestamp: true }]);
  }, 60_000);

  it("GET /v1/verify/crl: 120 anonymous GETs (100 at once) cost one KMS Sign; the kept CRL verifies against the root and carries caching headers; B-LT reuses it", async () => {
    const standIn = api.standIns.kms!.standIn;
    rmSync(join(api.dataDir, "identity", "identity-root.crl"), { force: true });
    const before = standIn.signCalls();
    const get = async () => {
      const response = await fetch(`${api.url}/v1/verify/crl`);
      expect(response.status).toBe(200);
      return { headers: response.headers, der: Buffer.from(await response.arrayBuffer()) };
    };
    const answers = await Promise.all(Array.from({ length: 100 }, get));
    for (let i = 0; i < 20; i++) answers.push(await get());
    expect(standIn.signCalls() - before).toBe(1);
    expect(new Set(answers.map((answer) => answer.der.toString("base64"))).size).toBe(1);
    const { headers, der } = answers[0]!;
    expect(headers.get("cache-control")).toBe("public, max-age=86400");
    expect(headers.get("etag")).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    writeFileSync(join(dir, "kept.crl"), der);
    const checked = checkCrl(join(dir, "kept.crl"), join(dir, "root.pem"));
    expect(checked.stderr).toMatch(/verify OK/);
    expect(checked.stdout).toMatch(/Issuer: CN ?= ?Signet Root CA/);
    expect(headers.get("last-modified")).toBe(new Date(/Last Update: (.*)/.exec(checked.stdout)![1]!).toUTCString());
    // B-LT embeds the kept CRL: one Sign, the document's.
    const signedBefore = standIn.signCalls();
    const signed = await sign("B-LT");
    expect(standIn.signCalls() - signedBefore).toBe(1);
    expect(signed.includes(der)).toBe(true);
  }, 60_000);

  it("KMS throttling that outlasts the retries is 503 SERVICE_UNAVAILABLE with Retry-After over HTTP; the next request signs", async () => {
    const standIn = api.standIns.kms!.standIn;
    standIn.throttleSigns(100_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const response = await fetch(`${api.url}/v1/sign`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify(signBody("B-B")),
    });
    standIn.throttleSigns(0);
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(await response.json()).toMatchObject({ code: "SERVICE_UNAVAILABLE", message: expect.stringMatching(/throttling/) });
    await sign("B-B");
  }, 60_000);
});
