import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpTimestamper, timestampAgents } from "#adapters/http-timestamper.ts";
import { signPdf } from "#domain/signing/pades-signer.ts";
import { generateIdentity, type SigningIdentity } from "#domain/signing/signing-identity.ts";
import { openPdfFile } from "#domain/pdf/open-pdf.ts";
import { verifySignatures } from "#domain/verification/signature-verifier.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { forgeGenTime, startLoopbackTsa, type LoopbackTsa } from "#test/helpers/pki/loopback-tsa.ts";
import { cmsOf, expectSignedPdf } from "#test/helpers/signature-checks.ts";

let tsa: LoopbackTsa;
let forging: LoopbackTsa;
let broken: http.Server;
let brokenUrl: string;
let identity: SigningIdentity;
let input: Buffer;

beforeAll(async () => {
  tsa = await startLoopbackTsa();
  forging = await startLoopbackTsa({ tamper: forgeGenTime });
  broken = http.createServer((_req, res) => res.writeHead(503).end("down"));
  await new Promise<void>((resolve) => broken.listen(0, "127.0.0.1", resolve));
  brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}/`;
  identity = await generateIdentity({ keyType: "EC" });
  input = await makePdf(1);
}, 30_000);

afterAll(async () => {
  await tsa?.close();
  await forging?.close();
  await new Promise<void>((resolve) => broken?.close(() => resolve()));
});

const sign = (tsaUrl: string) =>
  signPdf(input, { identity, signingTime: new Date(), signerName: "Ada", reason: "r", timestamper: createHttpTimestamper(tsaUrl, 5_000) });

describe("RFC 3161 timestamps (PAdES B-T)", () => {
  it("adds a token from a real TSA that pdfsig accepts", async () => {
    const signed = await sign(tsa.url);
    const [signature] = await expectSignedPdf(signed, { input });
    expect(signature!.valid).toBe(true);
    expect(signature!.type).toBe("ETSI.CAdES.detached");
  });

  it("sizes /Contents from the tokens the TSA gives: after the first, about a kilobyte of slack", async () => {
    const timestamper = createHttpTimestamper(tsa.url, 5_000);
    const slack = (signed: Buffer) => {
      const text = signed.toString("latin1");
      const at = text.lastIndexOf("/Contents <");
      return (text.indexOf(">", at) - at - "/Contents <".length) / 2 - cmsOf(signed).length;
    };
    const options = { identity, signingTime: new Date(), signerName: "Ada", reason: "r", timestamper };
    const first = await signPdf(input, options);
    const second = await signPdf(input, options);
    expect(slack(first)).toBeGreaterThan(8_000); // no token seen yet: the 16 KB bound
    expect(slack(second)).toBeGreaterThanOrEqual(0);
    expect(slack(second)).toBeLessThanOrEqual(1_024 + 128);
    await expectSignedPdf(second, { input });
  });

  it("refuses a reply whose token was changed after the TSA signed it (forged genTime)", async () => {
    const failure = await sign(forging.url).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "TSA_FAILED", message: expect.stringMatching(/signature does not verify/) });
    expect(forging.requests).toBe(1);
  });

  it("reports a verified timestamp, and an honest failure when the embedded token was changed", async () => {
    const signed = await sign(tsa.url);
    await expectSignedPdf(signed, { input });
    const report = await verifySignatures(openPdfFile(signed), { anchors: [identity.certificate] });
    expect(report.valid).toBe(true);
    const timestamp = report.signatures[0]!.timestamp!;
    expect(timestamp).toMatchObject({ authority: "CN=Signet Test TSA", imprintValid: true, tokenValid: true });
    expect(Math.abs(Date.parse(timestamp.time!) - Date.now())).toBeLessThan(120_000);

    // The token is an unsigned attribute inside /Contents, outside the ByteRange: swap in a forged one.
    // The token's genTime is the CMS's only GeneralizedTime (certificates use UTCTime; B-B has no signing-time).
    const cms = cmsOf(signed);
    const forged = Buffer.from(signed);
    const hexAt = forged.lastIndexOf(Buffer.from(cms.toString("hex").toUpperCase(), "latin1"));
    expect(hexAt).toBeGreaterThan(0);
    forged.write(forgeGenTime(cms).toString("hex").toUpperCase(), hexAt, "latin1");
    const after = await verifySignatures(openPdfFile(forged), { anchors: [identity.certificate] });
    expect(after.signatures[0]).toMatchObject({ integrity: "ok", timestamp: { time: null, imprintValid: false, tokenValid: false } });
    expect(after.reason).toMatch(/timestamp of signature "Signet_1" does not verify/);
  });

  it("reuses one kept-alive connection for consecutive timestamps", async () => {
    const before = { requests: tsa.requests, connections: tsa.connections };
    const timestamper = createHttpTimestamper(tsa.url, 5_000);
    for (let index = 0; index < 3; index++) await timestamper.timestamp(Buffer.alloc(32, index + 1));
    expect(tsa.requests - before.requests).toBe(3);
    // Node 22's global agent keeps connections alive too; what matters is that ours holds the socket.
    expect(tsa.connections - before.connections).toBeLessThanOrEqual(1);
    expect(Object.keys(timestampAgents.http.freeSockets).join(" ")).toContain(new URL(tsa.url).port);
  });

  it.each([
    ["answers HTTP 503", () => brokenUrl],
    ["refuses the connection", () => "http://127.0.0.1:9/"],
  ])("fails the signing with TSA_FAILED when the TSA %s", async (_name, url) => {
    await expect(sign(url())).rejects.toMatchObject({ code: "TSA_FAILED" });
  });
});
