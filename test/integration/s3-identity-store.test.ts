import { S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createS3IdentityStore } from "#adapters/s3-identity-store.ts";
import { startS3StandIn, type S3StandIn } from "#local/s3-stand-in.ts";

// The signing identity's S3 store (the AWS path) against the local S3 stand-in:
// the adapter's real calls, GetObject misses and the put-if-absent (If-None-Match: *) included.
let s3: S3StandIn;
const client = () =>
  new S3Client({ region: "us-east-1", endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: "local", secretAccessKey: "local" } });

beforeAll(async () => {
  s3 = await startS3StandIn({ buckets: ["identity"], secretAccessKey: "local" });
});
afterAll(async () => s3?.close());

describe("S3 identity store on the stand-in", () => {
  it("generates an identity on first use, and every later store loads the same one", async () => {
    const first = await createS3IdentityStore({ bucket: "identity", p12Password: "", client: client() }).load();
    const second = await createS3IdentityStore({ bucket: "identity", p12Password: "", client: client() }).load();
    expect(second.certificate.fingerprint256).toBe(first.certificate.fingerprint256);
  }, 60_000);

  it("settles concurrent cold starts on one identity (put-if-absent)", async () => {
    const fresh = await startS3StandIn({ buckets: ["race"], secretAccessKey: "local" });
    try {
      const make = () =>
        createS3IdentityStore({
          bucket: "race",
          p12Password: "",
          client: new S3Client({
            region: "us-east-1",
            endpoint: fresh.endpoint,
            forcePathStyle: true,
            credentials: { accessKeyId: "local", secretAccessKey: "local" },
          }),
        }).load();
      const loaded = await Promise.all([make(), make(), make()]);
      expect(new Set(loaded.map((identity) => identity.certificate.fingerprint256)).size).toBe(1);
    } finally {
      await fresh.close();
    }
  }, 60_000);
});
