import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { makeLargeDocx, makeLargePdf, postUpload, requestUpload, upload } from "#test/helpers/large-docs.ts";
import { pdfText } from "#test/helpers/pdf-tools.ts";
import { buildDocx, p, run } from "#test/helpers/docx-builder.ts";
import { expectSignedPdf } from "#test/helpers/signature-checks.ts";

// Documents too large for a request body on AWS go to S3 first (the local S3 stand-in
// here, through the same adapter and the same presigned POST), then are named by reference.
const MB = 1024 * 1024;
let api: LocalApi;
let key: string;
let otherKey: string;

beforeAll(async () => {
  api = await startLocalApi("uploads", { SIGNET_TABLE: "signet-uploads-server", SIGNET_CONVERSION_MODE: "oneshot" });
  key = await obtainKey(api, "uploads");
  otherKey = await obtainKey(api, "uploads-other");
}, 120_000);

afterAll(async () => {
  await api?.close();
});

const signBody = (document: Record<string, string>) => ({
  document,
  signer: { name: "Ada Lovelace", email: "ada@example.com" },
  auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
});

describe("uploads through the presigned POST", () => {
  it("grants a POST limited to the document size, into the caller's folder, for a short time", async () => {
    const { status, grant } = await requestUpload(api.url, key);
    expect(status).toBe(200);
    expect(grant.upload).toMatch(/^upl_[0-9a-z]+_[0-9a-f]{16}_[A-Za-z0-9_-]{22}$/);
    expect(grant.maxBytes).toBe(25 * MB);
    expect(grant.url).toBe(`${api.standIns.s3Endpoint}/signet-uploads`);
    expect(grant.fields.key).toMatch(new RegExp(`^uploads/[0-9a-f]{16}/${grant.upload}$`));
    const policy = JSON.parse(Buffer.from(grant.fields.Policy!, "base64").toString("utf8")) as { expiration: string; conditions: unknown[] };
    expect(policy.conditions).toContainEqual(["content-length-range", 1, 25 * MB]);
    const minutes = (Date.parse(grant.expiresAt) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(10);
    expect(minutes).toBeLessThanOrEqual(15);
  });

  it("needs an API key", async () => {
    const response = await fetch(`${api.url}/v1/uploads`, { method: "POST" });
    expect(response.status).toBe(401);
  });

  it("signs a 20 MB PDF by reference and streams the signed PDF back; then the reference is used up", async () => {
    const pdf = await makeLargePdf(20 * MB);
    expect(pdf.length).toBeGreaterThan(19.5 * MB);
    const reference = await upload(api.url, key, pdf);
    const response = await fetch(`${api.url}/v1/sign`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify(signBody({ upload: reference })),
    });
    expect(response.status).toBe(200);
    // Streamed back (the sign function runs in streaming mode, as on AWS), with the Content-Length
    // the whole answer has before its first byte, so a cut answer shows as short.
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(response.headers.get("content-length")).toBe(String(bytes.length));
    const json = JSON.parse(bytes.toString("utf8")) as { document: { base64: string } };
    const signed = Buffer.from(json.document.base64, "base64");
    expect(signed.length).toBeGreaterThan(pdf.length);
    const [signature] = await expectSignedPdf(signed, { input: pdf });
    expect(signature).toMatchObject({ valid: true, totalDocumentSigned: true });

    const again = await api.postJson("/v1/sign", signBody({ upload: reference }), key);
    expect(again.status).toBe(404);
    expect(again.json).toMatchObject({ code: "NOT_FOUND", details: [{ field: "document.upload", issue: "unknown upload" }] });
  }, 180_000);

  it("converts a 20 MB DOCX by reference (?upload=, no body)", async () => {
    const docx = makeLargeDocx(20 * MB, "Twenty megabytes of statement of work");
    const reference = await upload(api.url, key, docx);
    const response = await fetch(`${api.url}/v1/convert?from=docx&upload=${reference}`, { method: "POST", headers: { authorization: `Bearer ${key}` } });
    expect(
      response.status,
      await response
        .clone()
        .text()
        .then((t) => t.slice(0, 300)),
    ).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    const pdf = Buffer.from(await response.arrayBuffer());
    expect(await pdfText(pdf)).toContain("Twenty megabytes of statement of work");
  }, 300_000);

  it("annotates a template by reference (annotate/fields, then annotate with a second upload)", async () => {
    const template = buildDocx({ body: p(run("Date: {{date}}")) });
    const fields = await api.postJson("/v1/annotate/fields", { document: { upload: await upload(api.url, key, template) } }, key);
    expect(fields.status).toBe(200);
    expect(JSON.stringify(fields.json)).toContain("date");
    const filled = await api.postJson(
      "/v1/annotate",
      { document: { upload: await upload(api.url, key, template) }, fields: [{ id: "date", type: "text", value: "23 November" }] },
      key,
    );
    expect(filled.status, JSON.stringify(filled.json).slice(0, 300)).toBe(200);
    expect(filled.json.document.base64).toMatch(/^data:application\/vnd\.openxmlformats/);
  });

  it("refuses an upload over the cap by the POST policy (S3's EntityTooLarge)", async () => {
    const { grant } = await requestUpload(api.url, key);
    const posted = await postUpload(grant, Buffer.alloc(25 * MB + 1, 0x25));
    expect(posted.status).toBe(400);
    expect(posted.text).toContain("<Code>EntityTooLarge</Code>");
    const { status } = await api.postJson("/v1/sign", signBody({ upload: grant.upload }), key);
    expect(status).toBe(404);
  }, 60_000);

  it("refuses a POST whose policy was tampered with or whose key was changed", async () => {
    const { grant } = await requestUpload(api.url, key);
    const tampered = await postUpload(
      { url: grant.url, fields: { ...grant.fields, key: grant.fields.key!.replace(/[0-9a-f]{16}/, "0000000000000000") } },
      Buffer.from("%PDF-1.7\n"),
    );
    expect(tampered.status).toBe(403);
    expect(tampered.text).toContain("Policy Condition failed");
  });

  it("answers 404 for another key's reference and for an expired one, 400 for a malformed one", async () => {
    const pdf = await makeLargePdf(64 * 1024);
    const reference = await upload(api.url, key, pdf);
    const foreign = await api.postJson("/v1/sign", signBody({ upload: reference }), otherKey);
    expect(foreign.status).toBe(404);
    expect(foreign.json.code).toBe("NOT_FOUND");

    // Same owner tag and random part, issued two hours ago (references are usable for one hour).
    const expired = reference.replace(/^upl_[0-9a-z]+_/, `upl_${Math.floor(Date.now() / 1000 - 7200).toString(36)}_`);
    const old = await api.postJson("/v1/sign", signBody({ upload: expired }), key);
    expect(old.status).toBe(404);
    expect(old.json.message).toMatch(/expired at .*request a new upload.*POST \/v1\/uploads/);

    const malformed = await api.postJson("/v1/sign", signBody({ upload: "../../identity/identity.pem" }), key);
    expect(malformed.status).toBe(400);

    // The owner can still use it: neither refusal consumed it.
    const own = await api.postJson("/v1/verify", { document: { upload: reference } });
    expect(own.status).toBe(200);
  }, 60_000);
});
