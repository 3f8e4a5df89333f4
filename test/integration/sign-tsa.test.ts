import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpTimestamper } from "#adapters/http-timestamper.ts";
import { signPdf } from "#domain/pades-signer.ts";
import { generateIdentity, type SigningIdentity } from "#domain/signing-identity.ts";
import { pdfsig } from "#test/helpers/pdf-tools.ts";
import { makePdf, startLoopbackTsa, type LoopbackTsa } from "#test/helpers/sign-tools.ts";

let tsa: LoopbackTsa;
let broken: http.Server;
let brokenUrl: string;
let identity: SigningIdentity;
let input: Buffer;

beforeAll(async () => {
  tsa = await startLoopbackTsa();
  broken = http.createServer((_req, res) => res.writeHead(503).end("down"));
  await new Promise<void>((resolve) => broken.listen(0, "127.0.0.1", resolve));
  brokenUrl = `http://127.0.0.1:${(broken.address() as AddressInfo).port}/`;
  identity = await generateIdentity({ keyType: "EC" });
  input = await makePdf(1);
}, 30_000);

afterAll(async () => {
  await tsa?.close();
  await new Promise<void>((resolve) => broken?.close(() => resolve()));
});

const sign = (tsaUrl: string) => signPdf(input, { identity, signingTime: new Date(), signerName: "Ada", reason: "r", timestamper: createHttpTimestamper(tsaUrl, 5_000) });

describe("RFC 3161 timestamps (PAdES B-T)", () => {
  it("adds a token from a real TSA that pdfsig accepts", async () => {
    const signed = await sign(tsa.url);
    const [signature] = await pdfsig(signed);
    expect(signature!.valid).toBe(true);
    expect(signature!.type).toBe("ETSI.CAdES.detached");
  });

  it("reuses one kept-alive connection for consecutive timestamps", async () => {
    const before = { requests: tsa.requests, connections: tsa.connections };
    const timestamper = createHttpTimestamper(tsa.url, 5_000);
    for (let index = 0; index < 3; index++) await timestamper.timestamp(Buffer.alloc(32, index + 1));
    expect(tsa.requests - before.requests).toBe(3);
    // Node 22's global agent keeps connections alive too; what matters is that ours holds the socket.
    expect(tsa.connections - before.connections).toBeLessThanOrEqual(1);
    const { timestampAgents } = await import("#adapters/http-timestamper.ts");
    expect(Object.keys(timestampAgents.http.freeSockets).join(" ")).toContain(new URL(tsa.url).port);
  });

  it.each([
    ["answers HTTP 503", () => brokenUrl],
    ["refuses the connection", () => "http://127.0.0.1:9/"],
  ])("fails the signing with TSA_FAILED when the TSA %s", async (_name, url) => {
    await expect(sign(url())).rejects.toMatchObject({ code: "TSA_FAILED" });
  });
});
