import { createHash, randomBytes } from "node:crypto";
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readPresigned, writePresigned } from "#adapters/presigned-url.ts";
import { createS3OfficeTransfer } from "#adapters/s3-office-transfer.ts";
import { createS3UploadStore, s3ClientFor } from "#adapters/s3-upload-store.ts";
import { startS3StandIn, type S3StandIn } from "#local/s3-stand-in.ts";
import { postUpload } from "#test/helpers/large-docs.ts";

/** amzDate is now in SigV4's basic format (20261128T093000Z). */
function amzDate(): string {
  return new Date().toISOString().replace(/[-:]|\.\d+/g, "");
}

// The S3 stand-in enforces a POST policy, SigV4 signatures and body checksums as S3 does, so the
// local server refuses what AWS refuses.
let s3: S3StandIn;
const credentials = { accessKeyId: "local", secretAccessKey: "stand-in-secret" };
const client = (options: { systemClockOffset?: number; secretAccessKey?: string } = {}) =>
  new S3Client({
    region: "us-east-1",
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: { ...credentials, ...(options.secretAccessKey ? { secretAccessKey: options.secretAccessKey } : {}) },
    ...(options.systemClockOffset !== undefined ? { systemClockOffset: options.systemClockOffset } : {}),
  });

beforeAll(async () => {
  s3 = await startS3StandIn({ buckets: ["uploads"], secretAccessKey: credentials.secretAccessKey, accessKeyId: credentials.accessKeyId });
});
afterAll(async () => s3?.close());

describe("S3 stand-in: presigned POST policies", () => {
  it("stores an upload within the policy, reads it back through the adapter, deletes it", async () => {
    const store = createS3UploadStore({ bucket: "uploads", client: client() });
    const post = await store.presignPost({ key: "uploads/a/one", maxBytes: 1024, expiresInSeconds: 60 });
    expect((await postUpload(post, Buffer.from("hello"))).status).toBe(204);
    expect((await store.read("uploads/a/one", 1024))?.toString()).toBe("hello");
    expect(await store.read("uploads/a/one", 3)).toBe("too-large");
    await store.remove("uploads/a/one");
    expect(await store.read("uploads/a/one", 1024)).toBeUndefined();
  });

  it("refuses a file over content-length-range and an empty one", async () => {
    const store = createS3UploadStore({ bucket: "uploads", client: client() });
    const post = await store.presignPost({ key: "uploads/a/two", maxBytes: 10, expiresInSeconds: 60 });
    const large = await postUpload(post, Buffer.alloc(11));
    expect(large.status).toBe(400);
    expect(large.text).toContain("EntityTooLarge");
    const empty = await postUpload(post, Buffer.alloc(0));
    expect(empty.status).toBe(400);
    expect(empty.text).toContain("EntityTooSmall");
    expect(await store.read("uploads/a/two", 100)).toBeUndefined();
  });

  it("refuses an expired policy", async () => {
    // A client clock an hour behind signs a policy that expired long ago.
    const store = createS3UploadStore({ bucket: "uploads", client: client({ systemClockOffset: -3_600_000 }) });
    const post = await store.presignPost({ key: "uploads/a/three", maxBytes: 100, expiresInSeconds: 60 });
    const answer = await postUpload(post, Buffer.from("late"));
    expect(answer.status).toBe(403);
    expect(answer.text).toContain("Policy expired");
  });

  it("refuses a policy signed with another secret, and extra form fields", async () => {
    const forged = createS3UploadStore({ bucket: "uploads", client: client({ secretAccessKey: "guessed" }) });
    const post = await forged.presignPost({ key: "uploads/a/four", maxBytes: 100, expiresInSeconds: 60 });
    expect((await postUpload(post, Buffer.from("x"))).text).toContain("SignatureDoesNotMatch");

    const store = createS3UploadStore({ bucket: "uploads", client: client() });
    const good = await store.presignPost({ key: "uploads/a/five", maxBytes: 100, expiresInSeconds: 60 });
    const extra = await postUpload({ url: good.url, fields: { ...good.fields, acl: "public-read" } }, Buffer.from("x"));
    expect(extra.status).toBe(403);
    expect(extra.text).toContain("Extra input fields: acl");
  });
});

describe("S3 stand-in: presigned PUTs and their checksums", () => {
  const MB = 1024 * 1024;
  const transferOf = (s3Client: S3Client) => createS3OfficeTransfer({ client: s3Client, bucket: "uploads" });
  const adapterClient = () => s3ClientFor({ region: "us-east-1", endpoint: s3.endpoint, credentials });

  it("the adapter's presigned PUT carries no checksum, and a 5 MB output goes through it intact", async () => {
    const transfer = transferOf(adapterClient());
    const url = await transfer.presign("office/big/output", "PUT", 60);
    expect([...new URL(url).searchParams.keys()].filter((name) => /checksum/i.test(name))).toEqual([]);
    const bytes = randomBytes(5 * MB);
    await writePresigned(url, bytes, 30_000);
    expect((await transfer.read("office/big/output", 10 * MB)).equals(bytes)).toBe(true);
    const get = await transfer.presign("office/big/output", "GET", 60);
    expect([...new URL(get).searchParams.keys()].filter((name) => /checksum/i.test(name))).toEqual([]);
    expect((await readPresigned(get, 10 * MB, 30_000)).equals(bytes)).toBe(true);
    await transfer.remove("office/big/output");
  });

  it("refuses, as S3 does, the SDK's default presigned PUT (the CRC32 of an empty body) for a 5 MB body: 400 BadDigest", async () => {
    const url = await getSignedUrl(client(), new PutObjectCommand({ Bucket: "uploads", Key: "office/crc/output" }), { expiresIn: 60 });
    expect(new URL(url).searchParams.get("x-amz-checksum-crc32")).toBe("AAAAAA==");
    const response = await fetch(url, { method: "PUT", body: randomBytes(5 * MB) });
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/<Code>BadDigest<\/Code><Message>The CRC32 you specified did not match the calculated checksum\./);
    await expect(transferOf(adapterClient()).read("office/crc/output", MB)).rejects.toThrow();
  });

  // One row: the checksum headers sent with "hello", the status and S3's error code (none for 200).
  it.each([
    ["the right CRC32", { "x-amz-checksum-crc32": "NhCmhg==" }, 200, undefined],
    ["the right CRC32C", { "x-amz-checksum-crc32c": "mnG7TA==" }, 200, undefined],
    ["the right SHA-256", { "x-amz-checksum-sha256": createHash("sha256").update("hello").digest("base64") }, 200, undefined],
    ["a wrong CRC32", { "x-amz-checksum-crc32": "AAAAAA==" }, 400, "BadDigest"],
    ["a wrong SHA-1", { "x-amz-checksum-sha1": createHash("sha1").update("hullo").digest("base64") }, 400, "BadDigest"],
    ["an unreadable CRC32", { "x-amz-checksum-crc32": "not-base64" }, 400, "InvalidRequest"],
    [
      "two checksums",
      { "x-amz-checksum-crc32": "NhCmhg==", "x-amz-checksum-sha1": createHash("sha1").update("hello").digest("base64") },
      400,
      "InvalidRequest",
    ],
    ["a wrong Content-MD5", { "content-md5": createHash("md5").update("hullo").digest("base64") }, 400, "BadDigest"],
  ])("a PUT with %s", async (_, headers, status, code) => {
    const key = `checks/${randomBytes(4).toString("hex")}`;
    const url = await getSignedUrl(adapterClient(), new PutObjectCommand({ Bucket: "uploads", Key: key }), {
      expiresIn: 60,
      signableHeaders: new Set(Object.keys(headers)),
    });
    const response = await fetch(url, { method: "PUT", body: "hello", headers });
    const text = await response.text();
    expect(response.status, text).toBe(status);
    if (code) expect(text).toContain(`<Code>${code}</Code>`);
    expect(
      await transferOf(adapterClient())
        .read(key, MB)
        .then(String, () => "none"),
    ).toBe(status === 200 ? "hello" : "none");
  });
});

describe("S3 stand-in: every request carries a valid SigV4 signature", () => {
  const put = (s3Client: S3Client, key: string) => s3Client.send(new PutObjectCommand({ Bucket: "uploads", Key: key, Body: Buffer.from("secret") }));

  it("accepts the SDK's header-signed calls and presigned URLs made with the secret", async () => {
    await put(client(), "sig/a");
    const url = await getSignedUrl(client(), new GetObjectCommand({ Bucket: "uploads", Key: "sig/a" }), { expiresIn: 60 });
    expect(await (await fetch(url)).text()).toBe("secret");
  });

  // One row: how the request is made, S3's status and code. None of them may read or write.
  it.each([
    ["no signature", async () => fetch(`${s3.endpoint}/uploads/sig/a`), 403, "AccessDenied"],
    [
      "a made-up Authorization header",
      async () =>
        fetch(`${s3.endpoint}/uploads/sig/a`, {
          headers: {
            // The credential scope's date is today's (a fixed date fails with another error from the next day on).
            authorization: `AWS4-HMAC-SHA256 Credential=local/${amzDate().slice(0, 8)}/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${"0".repeat(64)}`,
            "x-amz-date": amzDate(),
            "x-amz-content-sha256": "UNSIGNED-PAYLOAD",
          },
        }),
      403,
      "SignatureDoesNotMatch",
    ],
    [
      "any Authorization header at all",
      async () => fetch(`${s3.endpoint}/uploads/sig/a`, { headers: { authorization: "Bearer x" } }),
      400,
      "AuthorizationHeaderMalformed",
    ],
    [
      "another secret",
      async () =>
        fetch(await getSignedUrl(client({ secretAccessKey: "guessed" }), new GetObjectCommand({ Bucket: "uploads", Key: "sig/a" }), { expiresIn: 60 })),
      403,
      "SignatureDoesNotMatch",
    ],
    [
      "an expired presigned URL",
      async () =>
        fetch(
          await getSignedUrl(client(), new GetObjectCommand({ Bucket: "uploads", Key: "sig/a" }), {
            expiresIn: 60,
            signingDate: new Date(Date.now() - 3_600_000),
          }),
        ),
      403,
      "AccessDenied",
    ],
    [
      "a presigned URL for another key",
      async () =>
        fetch(
          (await getSignedUrl(client(), new GetObjectCommand({ Bucket: "uploads", Key: "sig/other" }), { expiresIn: 60 })).replace("/sig/other?", "/sig/a?"),
        ),
      403,
      "SignatureDoesNotMatch",
    ],
    [
      "a presigned GET used to PUT",
      async () =>
        fetch(await getSignedUrl(client(), new GetObjectCommand({ Bucket: "uploads", Key: "sig/a" }), { expiresIn: 60 }), {
          method: "PUT",
          body: "overwritten",
        }),
      403,
      "SignatureDoesNotMatch",
    ],
  ])("refuses %s", async (_, request, status, code) => {
    const response = await request();
    const text = await response.text();
    expect(response.status, text).toBe(status);
    expect(text).toContain(`<Code>${code}</Code>`);
    expect(text).not.toContain("secret");
    expect((await createS3UploadStore({ bucket: "uploads", client: client() }).read("sig/a", 100))?.toString()).toBe("secret");
  });

  it("refuses a signed PUT whose body is not the one signed (x-amz-content-sha256): 400 XAmzContentSHA256Mismatch", async () => {
    const tampering = client();
    tampering.middlewareStack.add(
      (next) => async (args) => {
        const request = args.request as { body: unknown };
        request.body = Buffer.from("SECRET"); // same length, other bytes
        return next(args);
      },
      { step: "finalizeRequest", priority: "low", name: "tamperAfterSigning" },
    );
    await expect(put(tampering, "sig/b")).rejects.toMatchObject({ name: "XAmzContentSHA256Mismatch" });
  });
});
