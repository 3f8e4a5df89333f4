// No key, code, revocation token, P12 password or document
// content reaches any log line of a full walk-through through the real local server (register,
// verify, sign, revoke, and a request abandoned with secrets in its query).
import { connect } from "node:net";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureOutput, latestCode, mailsTo, uniqueEmail } from "#test/helpers/keys-harness.ts";
import { startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";

const P12_PASSWORD = "p12-pass-Wq83LmZ";
const MARKER = "CONFIDENTIAL-MARKER-7731";
const output = captureOutput();
let api: LocalApi;

beforeAll(async () => {
  // The most the logger ever writes: DEBUG (the container sets the process's logger to it).
  api = await startLocalApi("log-secrets", {
    SIGNET_TABLE: "signet-log-secrets",
    SIGNET_LOG_LEVEL: "DEBUG",
    SIGNET_IDENTITY_P12_PASSWORD: P12_PASSWORD,
    SIGNET_CONVERSION_MODE: "oneshot",
  });
}, 120_000);
afterAll(async () => {
  output.stop();
  await api?.close();
});

async function pdfWithMarker(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([595, 842]);
  page.drawText(`${MARKER} salary 123,456`, { x: 50, y: 750, size: 14, font: await pdf.embedFont(StandardFonts.Helvetica) });
  return Buffer.from(await pdf.save({ useObjectStreams: false }));
}

/** abandon sends a request's headers with secrets in the query, promises a body and hangs up. */
function abandon(path: string): Promise<void> {
  const url = new URL(api.url);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), "127.0.0.1", () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost:${url.port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"partial":`);
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 200);
    });
  });
}

describe("the logs of a full walk-through", () => {
  it("never hold the key, the code, the revocation token, the P12 password or the document's content", async () => {
    const email = uniqueEmail("logs");
    const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
    expect((await fetch(`${api.url}/v1/auth/register?${q({ email })}`)).status).toBe(200);
    const code = await latestCode(api.standIns.sesEndpoint, email);
    const verified = await fetch(`${api.url}/v1/auth/verify?${q({ email, code })}`);
    expect(verified.status).toBe(200);
    const key = ((await verified.json()) as { key: string }).key;

    const pdf = await pdfWithMarker();
    const signed = await api.postJson(
      "/v1/sign",
      {
        document: { base64: pdf.toString("base64") },
        signer: { name: "Ada Lovelace", email },
        auditTrail: [{ type: "submit", timestamp: "2026-11-25T10:00:00Z", data: { note: MARKER } }],
        metadata: { reference: MARKER },
      },
      key,
    );
    expect(signed.status, JSON.stringify(signed.json)).toBe(200);
    const signedBase64 = signed.json.document.base64 as string;

    const notice = (await mailsTo(api.standIns.sesEndpoint, email)).find((mail) => mail.subject.includes("API key was created"))!;
    const token = /token=(rvk_[0-9A-Za-z]+)/.exec(notice.body.text ?? "")![1]!;
    // A request abandoned mid-body, with every secret in its query.
    await abandon(`/v1/sign?${q({ email, code, token, key })}`);
    expect((await fetch(`${api.url}/v1/keys/revoke?${q({ token, confirm: "yes" })}`)).status).toBe(200);
    // A failing call too: the wrong-code path and a revoked key's 401.
    expect((await fetch(`${api.url}/v1/auth/verify?${q({ email, code: code === "000000" ? "111111" : "000000" })}`)).status).toBe(422);
    expect((await api.postJson("/v1/sign", {}, key)).status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the abandoned request's line

    const logs = output.text();
    expect(logs).toContain('"message":"request"'); // the walk-through was logged at all
    expect(logs).toContain("request abandoned before its body arrived");
    const secrets: Record<string, string> = {
      key,
      "key without prefix": key.slice(4),
      token,
      "token without prefix": token.slice(4),
      "P12 password": P12_PASSWORD,
      "document text": MARKER,
      "document base64 (a slice)": pdf.toString("base64").slice(200, 260),
      "signed document base64 (a slice)": signedBase64.slice(-400, -340),
    };
    // The code as a whole number: six digits may occur inside an id or a time by chance.
    expect(logs).not.toMatch(new RegExp(`(?<![0-9A-Za-z])${code}(?![0-9A-Za-z])`));
    for (const [name, secret] of Object.entries(secrets)) {
      const at = logs.indexOf(secret);
      expect(at, `${name} in the log: ...${logs.slice(Math.max(0, at - 200), at + 50)}`).toBe(-1);
    }
  });
});
