import { S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createS3UploadStore } from "#adapters/s3-upload-store.ts";
import { startS3StandIn, type S3StandIn } from "#local/s3-stand-in.ts";
import { postUpload } from "#test/helpers/large-docs.ts";

// The S3 stand-in enforces a POST policy as S3 does, so the local server refuses what AWS refuses.
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
  s3 = await startS3StandIn({ buckets: ["uploads"], secretAccessKey: credentials.secretAccessKey });
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
