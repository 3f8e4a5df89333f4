// B-LT and B-LTA end to end on the local server with the identity it
// generates. The server serves its root's CRL at GET /v1/verify/crl (issued at first need and kept in the identity folder), its signing certificate names
// that URL, and sign embeds the CRL without a network hop (the safe fetcher keeps refusing
// loopback). The TSA is openssl ts on loopback with the test PKI's self-signed TSA certificate, so its token's chain
// is complete and needs no revocation data of its own.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { pdfsig } from "#test/helpers/pdf-tools.ts";
import { certificateText, checkCrl } from "#test/helpers/pki/openssl.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { startLoopbackTsa, type LoopbackTsa } from "#test/helpers/pki/loopback-tsa.ts";
import { scratchDir } from "#test/helpers/scratch.ts";
import { pyhankoLtv } from "#test/helpers/signature-checks.ts";
import { makeCrlIssuer } from "#functions/crl-issuer.ts";
import { startLocalServer } from "#local/server.ts";

let tsa: LoopbackTsa;
let api: LocalApi;
let key: string;
let input: Buffer;
let dir: string;

beforeAll(async () => {
  tsa = await startLoopbackTsa({ selfSigned: true });
  api = await startLocalApi("crl-server", { SIGNET_TABLE: "signet-crl-server", SIGNET_CONVERSION_MODE: "oneshot", SIGNET_TSA_URL: tsa.url });
  key = await obtainKey(api, "crl");
  input = await makePdf(2);
  dir = scratchDir("crl-server");
  const published = (await (await fetch(`${api.url}/v1/verify/key`)).json()) as { certificate: string; rootCertificate: string };
  writeFileSync(join(dir, "root.pem"), published.rootCertificate);
  writeFileSync(join(dir, "leaf.pem"), published.certificate);
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

/**
 * ltvValidate is pyHanko's PAdES long-term validation, offline, trusting the local root and the TSA.
 * pyHanko runs synchronously and blocks the server's event loop too: a short wait lets the
 * keep-alive timers that expired meanwhile close the idle connection before the next request
 * reuses it (else ECONNRESET on a loaded machine, as in kms-server.test.ts).
 */
async function ltvValidate(pdf: Buffer, profile: "LT" | "LTA"): Promise<ReturnType<typeof pyhankoLtv>> {
  const verdict = pyhankoLtv(pdf, profile, [join(dir, "root.pem"), tsa.certificatePem]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  return verdict;
}

async function sign(level: string): Promise<Buffer> {
  const { status, json } = await api.postJson("/v1/sign", signBody(level), key);
  expect(status, JSON.stringify(json)).toBe(200);
  return Buffer.from(json.document.base64 as string, "base64");
}

describe("the local server's CRL", () => {
  it("GET /v1/verify/crl is a DER CRL signed by the root of GET /v1/verify/key, fresh, listing nothing", async () => {
    const response = await fetch(`${api.url}/v1/verify/crl`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/pkix-crl");
    writeFileSync(join(dir, "root.crl"), Buffer.from(await response.arrayBuffer()));
    const checked = checkCrl(join(dir, "root.crl"), join(dir, "root.pem"));
    expect(checked.stderr).toMatch(/verify OK/);
    expect(checked.stdout).toMatch(/Issuer: CN ?= ?Signet Local Root CA/);
    expect(checked.stdout).toMatch(/No Revoked Certificates/);
    const last = Date.parse(/Last Update: (.*)/.exec(checked.stdout)![1]!);
    const next = Date.parse(/Next Update: (.*)/.exec(checked.stdout)![1]!);
    expect(next - last).toBe(7 * 86_400_000);
    expect(Math.abs(last - Date.now())).toBeLessThan(10 * 60_000); // signed at first need, not at start
    // Kept, not signed per request: the same bytes again, with caching headers.
    expect(response.headers.get("cache-control")).toBe("public, max-age=86400");
    expect(response.headers.get("last-modified")).toBe(new Date(last).toUTCString());
    const again = await fetch(`${api.url}/v1/verify/crl`);
    expect(again.headers.get("etag")).toBe(response.headers.get("etag"));
    expect(Buffer.from(await again.arrayBuffer()).equals(readFileSync(join(dir, "root.crl")))).toBe(true);
    expect(readFileSync(join(api.dataDir, "identity", "identity-root.crl")).equals(readFileSync(join(dir, "root.crl")))).toBe(true);
  });

  it("the CRL issuer function (run daily on AWS) keeps the CRL that is still fresh: same bytes, nothing signed", async () => {
    const kept = readFileSync(join(api.dataDir, "identity", "identity-root.crl"));
    const answer = await makeCrlIssuer(api.container)();
    const served = checkCrl(join(dir, "root.crl"), join(dir, "root.pem")).stdout;
    expect(Date.parse(answer.nextUpdate)).toBe(Date.parse(/Next Update: (.*)/.exec(served)![1]!));
    expect(readFileSync(join(api.dataDir, "identity", "identity-root.crl")).equals(kept)).toBe(true);
  });

  it("is the CRL distribution point of the generated signing certificate: this server's address", () => {
    const text = certificateText(join(dir, "leaf.pem"), "crlDistributionPoints");
    expect(text).toContain(`URI:${api.url}/v1/verify/crl`);
  });
});

describe("B-LT and B-LTA with the local identity, over HTTP", () => {
  it("B-LT: the DSS holds the root's CRL; pdfsig, pyHanko offline LT validation and verify agree", async () => {
    const before = tsa.requests;
    const signed = await sign("B-LT");
    expect(tsa.requests).toBe(before + 1);
    const text = signed.toString("latin1");
    expect(text).toContain("/DSS");
    expect(text).toMatch(/\/CRLs/);
    // An incremental update of the input; the DSS follows the signature, so pdfsig sees a valid signature not covering the whole file.
    expect(signed.subarray(0, input.length).equals(input)).toBe(true);
    expect((await pdfsig(signed)).map((signature) => signature.valid)).toEqual([true]);
    const ltv = await ltvValidate(signed, "LT");
    expect(ltv.ok, ltv.output).toBe(true);
    const verified = await api.postJson("/v1/verify", { document: { base64: signed.toString("base64") } });
    expect(verified.status).toBe(200);
    expect(verified.json.valid, verified.json.reason).toBe(true);
    expect(verified.json.signatures).toMatchObject([{ level: "B-LT", trusted: true, validationData: { offline: true } }]);
    // Without the CRL (its DSS key renamed) the same file no longer validates offline: the CRL is what carries it.
    const stripped = Buffer.from(signed);
    stripped.write("/CRLx", signed.toString("latin1").lastIndexOf("/CRLs"), "latin1");
    const without = await api.postJson("/v1/verify", { document: { base64: stripped.toString("base64") } });
    expect(without.json.signatures).toMatchObject([{ validationData: { offline: false, problem: expect.stringContaining("CN=Signet Local Signing") } }]);
  }, 60_000);

  it("B-LTA: a document timestamp follows; pyHanko offline LTA validation and verify agree", async () => {
    const signed = await sign("B-LTA");
    expect(signed.toString("latin1")).toContain("/DocTimeStamp");
    // pdfsig verifies the signature and lists the document timestamp without verifying it.
    expect((await pdfsig(signed)).map((signature) => signature.valid)).toEqual([true, false]);
    const ltv = await ltvValidate(signed, "LTA");
    expect(ltv.ok, ltv.output).toBe(true);
    const verified = await api.postJson("/v1/verify", { document: { base64: signed.toString("base64") } });
    expect(verified.json.valid, verified.json.reason).toBe(true);
    expect(verified.json.signatures).toMatchObject([
      { level: "B-LTA", documentTimestamp: false, validationData: { offline: true } },
      { documentTimestamp: true, validationData: { offline: true } },
    ]);
  }, 60_000);

  it("POST /v1/timestamp renews a B-LT file to B-LTA, embedding current validation data from this server's CRL", async () => {
    const signed = await sign("B-LT");
    const { status, json } = await api.postJson("/v1/timestamp", { document: { base64: signed.toString("base64") } }, key);
    expect(status, JSON.stringify(json)).toBe(200);
    const renewed = Buffer.from(json.document.base64 as string, "base64");
    expect(renewed.subarray(0, signed.length).equals(signed)).toBe(true);
    const ltv = await ltvValidate(renewed, "LTA");
    expect(ltv.ok, ltv.output).toBe(true);
    const verified = await api.postJson("/v1/verify", { document: { base64: renewed.toString("base64") } });
    expect(verified.json.valid, verified.json.reason).toBe(true);
    expect(verified.json.signatures).toMatchObject([
      { level: "B-LTA", validationData: { offline: true } },
      { documentTimestamp: true, validationData: { offline: true } },
    ]);
  }, 60_000);

  it("with the server on another port than the identity's CRL URL, B-LT is 502 FETCH_FAILED naming both URLs; B-T still signs", async () => {
    // A second server on the same container takes over the own CRL URL, as a restart on another port would.
    const other = await startLocalServer({ port: 0, host: "127.0.0.1", container: api.container });
    try {
      const { status, json } = await api.postJson("/v1/sign", signBody("B-LT"), key);
      expect(status).toBe(502);
      expect(json.code).toBe("FETCH_FAILED");
      expect(json.message).toContain(`${api.url}/v1/verify/crl is not this server's CRL (${other.url}/v1/verify/crl)`);
      expect((await api.postJson("/v1/sign", signBody("B-T"), key)).status).toBe(200);
    } finally {
      await other.close();
    }
  }, 60_000);
});
