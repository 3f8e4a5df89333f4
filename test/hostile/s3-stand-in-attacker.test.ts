// Another process on the machine reaches the local server's S3 stand-in on loopback (its port is
// printed at start and defaults to 8006) and wants a user's upload. The user uploads through the
// local server's presigned POST; the attacker knows the object key (the worst case) but not the
// secret (`npm start` makes a random one per start, shown below; under vitest the run's own random
// one, vitest.config.ts). Every try must be refused without a byte of the file.
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postUpload, requestUpload } from "#test/helpers/large-docs.ts";
import { startStandIns } from "#local/stand-ins.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";

let api: LocalApi;
let objectUrl: string;
let objectKey: string;
const canary = Buffer.from("%PDF-1.7 the user's private upload: CANARY-7f3a");

/** serverClient signs as the local server does (with the credentials its S3 stand-in checks). */
const serverClient = () =>
  new S3Client({
    region: "us-east-1",
    endpoint: api.standIns.s3Endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: api.standIns.env.AWS_ACCESS_KEY_ID!, secretAccessKey: api.standIns.env.AWS_SECRET_ACCESS_KEY! },
  });

const amzDate = () => new Date().toISOString().replace(/[-:]|\.\d+/g, "");

beforeAll(async () => {
  api = await startLocalApi("s3-attacker", { SIGNET_TABLE: "signet-s3-attacker" }, { parts: "keys" });
  const key = await obtainKey(api, "s3-attacker");
  const { grant } = await requestUpload(api.url, key);
  expect((await postUpload(grant, canary)).status).toBe(204);
  objectKey = grant.fields.key!;
  objectUrl = `${grant.url}/${objectKey}`;
}, 120_000);

afterAll(async () => {
  await api?.close();
});

describe("a loopback attacker against the local server's S3 stand-in", () => {
  it("the server's own credentials read the upload (so the refusals below are the signature check, not a missing object)", async () => {
    const url = await getSignedUrl(serverClient(), new GetObjectCommand({ Bucket: "signet-uploads", Key: objectKey }), { expiresIn: 60 });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(canary)).toBe(true);
  });

  it("the secret is not a known default: without AWS_SECRET_ACCESS_KEY (as `npm start` runs) each start makes a fresh random one", async () => {
    // The stand-ins' settings without any AWS credentials (this process's environment is not edited).
    const env = { SIGNET_UPLOADS_BUCKET: "signet-uploads" };
    const secrets: string[] = [];
    for (let start = 0; start < 2; start++) {
      const standIns = await startStandIns({ sesPort: 0, env });
      secrets.push(standIns.env.AWS_SECRET_ACCESS_KEY!);
      await standIns.close();
    }
    for (const secret of secrets) expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(secrets[0]).not.toBe(secrets[1]);
  });

  // One row: the attacker's request, S3's status and error code.
  it.each([
    [
      "a made-up Authorization header",
      () => fetch(objectUrl, { headers: { authorization: "AWS4-HMAC-SHA256 Credential=local/x, SignedHeaders=host, Signature=x" } }),
      400,
      "AuthorizationHeaderMalformed",
    ],
    [
      "a well-formed Authorization header with a made-up signature",
      () =>
        fetch(objectUrl, {
          headers: {
            authorization: `AWS4-HMAC-SHA256 Credential=local/${amzDate().slice(0, 8)}/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=${"ab".repeat(32)}`,
            "x-amz-date": amzDate(),
            "x-amz-content-sha256": "UNSIGNED-PAYLOAD",
          },
        }),
      403,
      "SignatureDoesNotMatch",
    ],
    [
      "a request signed with the old default secret 'local'",
      async () =>
        fetch(
          await getSignedUrl(
            new S3Client({
              region: "us-east-1",
              endpoint: api.standIns.s3Endpoint,
              forcePathStyle: true,
              credentials: { accessKeyId: "local", secretAccessKey: "local" },
            }),
            new GetObjectCommand({ Bucket: "signet-uploads", Key: objectKey }),
            { expiresIn: 60 },
          ),
        ),
      403,
      "SignatureDoesNotMatch",
    ],
    [
      "an expired presigned URL (an old one found in a log)",
      async () =>
        fetch(
          await getSignedUrl(serverClient(), new GetObjectCommand({ Bucket: "signet-uploads", Key: objectKey }), {
            expiresIn: 300,
            signingDate: new Date(Date.now() - 3_600_000),
          }),
        ),
      403,
      "AccessDenied",
    ],
    [
      "a presigned URL for another key, tampered to name the upload",
      async () => {
        const other = await getSignedUrl(serverClient(), new GetObjectCommand({ Bucket: "signet-uploads", Key: "office/attacker/input" }), { expiresIn: 60 });
        return fetch(other.replace("/office/attacker/input?", `/${objectKey}?`));
      },
      403,
      "SignatureDoesNotMatch",
    ],
    [
      "a presigned PUT with its expiry stretched",
      async () => {
        const url = await getSignedUrl(serverClient(), new PutObjectCommand({ Bucket: "signet-uploads", Key: objectKey }), { expiresIn: 60 });
        return fetch(url.replace("X-Amz-Expires=60", "X-Amz-Expires=604800"), { method: "PUT", body: "overwritten" });
      },
      403,
      "SignatureDoesNotMatch",
    ],
  ])("refuses %s", async (_, attack, status, code) => {
    const response = await attack();
    const body = Buffer.from(await response.arrayBuffer());
    expect(response.status, body.toString()).toBe(status);
    expect(body.toString()).toContain(`<Code>${code}</Code>`);
    expect(body.includes("CANARY-7f3a")).toBe(false);
    // The upload is untouched.
    const url = await getSignedUrl(serverClient(), new GetObjectCommand({ Bucket: "signet-uploads", Key: objectKey }), { expiresIn: 60 });
    expect(Buffer.from(await (await fetch(url)).arrayBuffer()).equals(canary)).toBe(true);
  });
});
