// Smaller HTTP edges, through the real local server (real LibreOffice for the
// file-name case): repeated query parameters, JSON media types, UTF-8 upload names, and a code
// killed by wrong tries.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureDocx } from "#test/helpers/convert-fixtures.ts";
import { latestCode, uniqueEmail } from "#test/helpers/keys-harness.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";

let api: LocalApi;
let key: string;

beforeAll(async () => {
  api = await startLocalApi("http-edges", { SIGNET_TABLE: "signet-http-edges", SIGNET_CONVERSION_CONCURRENCY: "1" });
  key = await obtainKey(api, "edges");
}, 120_000);

afterAll(async () => {
  await api?.close();
});

const auth = () => ({ authorization: `Bearer ${key}` });

describe("repeated query parameters are 400, never last-wins", () => {
  it("?to=xyz&to=docx on /v1/convert", async () => {
    const form = new FormData();
    form.append("file", new Blob([fixtureDocx()]), "a.docx");
    const response = await fetch(`${api.url}/v1/convert?from=docx&to=xyz&to=docx`, { method: "POST", body: form, headers: auth() });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { code: string; message: string; details: unknown[] };
    expect(body.code).toBe("VALIDATION_ERROR");
    expect(body.message).toMatch(/"to" appeared more than once/);
    expect(body.details).toEqual([{ field: "query.to", issue: "given 2 times; send it once" }]);
  });

  it("?email=a&email=b on /v1/auth/register sends no code", async () => {
    const a = uniqueEmail("dup-a");
    const b = uniqueEmail("dup-b");
    const response = await fetch(`${api.url}/v1/auth/register?email=${encodeURIComponent(a)}&email=${encodeURIComponent(b)}`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { details: unknown[] }).details).toEqual([{ field: "query.email", issue: "given 2 times; send it once" }]);
  });

  it("the same value twice is refused too", async () => {
    const response = await fetch(`${api.url}/v1/auth/verify?email=a%40example.com&code=123456&code=123456`);
    expect(response.status).toBe(400);
  });
});

describe("JSON routes take application/json only (docs/api.md)", () => {
  it.each(["application/vnd.api+json", "application/problem+json", "text/json"])("%s is 415", async (type) => {
    const response = await fetch(`${api.url}/v1/verify`, {
      method: "POST",
      headers: { "content-type": type },
      body: JSON.stringify({ document: { base64: "JVBERi0=" } }),
    });
    expect(response.status).toBe(415);
    expect(((await response.json()) as { code: string }).code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it("application/json with a charset is accepted", async () => {
    const response = await fetch(`${api.url}/v1/verify`, { method: "POST", headers: { "content-type": "application/json; charset=utf-8" }, body: "{}" });
    expect(response.status).toBe(400); // past the media type, refused by the schema
  });
});

describe("UTF-8 upload file names", () => {
  it("résumé.docx comes back as résumé.pdf (RFC 5987) with an ASCII fallback", async () => {
    const form = new FormData();
    form.append("file", new Blob([fixtureDocx()]), "résumé.docx");
    const response = await fetch(`${api.url}/v1/convert?from=docx`, { method: "POST", body: form, headers: auth() });
    expect(response.status).toBe(200);
    const disposition = response.headers.get("content-disposition")!;
    expect(disposition).toBe(`attachment; filename="resume.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`);
  }, 120_000);
});

describe("a code killed by wrong tries", () => {
  it("answers the right code like any code that does not work (no oracle), and a new code can be asked and used at once", async () => {
    const email = uniqueEmail("dead-code");
    const register = () => fetch(`${api.url}/v1/auth/register?email=${encodeURIComponent(email)}`);
    expect((await register()).status).toBe(200);
    const code = await latestCode(api.standIns.sesEndpoint, email);
    const wrong = code === "000000" ? "111111" : "000000";
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${api.url}/v1/auth/verify?email=${encodeURIComponent(email)}&code=${wrong}`);
      expect(response.status).toBe(422);
    }
    const dead = await fetch(`${api.url}/v1/auth/verify?email=${encodeURIComponent(email)}&code=${code}`);
    expect(dead.status).toBe(422);
    expect(((await dead.json()) as { code: string }).code).toBe("INVALID_CODE");
    expect(dead.headers.get("retry-after")).toBeNull();
    expect((await register()).status).toBe(200);
    const fresh = await latestCode(api.standIns.sesEndpoint, email);
    expect((await fetch(`${api.url}/v1/auth/verify?email=${encodeURIComponent(email)}&code=${fresh}`)).status).toBe(200);
  });
});
