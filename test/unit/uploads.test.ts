import { describe, expect, it } from "vitest";
import { SignetError } from "#domain/shared/errors.ts";
import { UPLOAD_REFERENCE, newUploadReference, ownerTag, readUpload, storeUploads, uploadObjectKey, type UploadStore } from "#domain/shared/upload.ts";
import { openApiDocument } from "#http/openapi.ts";

// Upload references and their place in the API description.
const settings = { maxBytes: 25 * 1024 * 1024, postExpirySeconds: 900, referenceTtlSeconds: 3600 };
/** untouched is a store the checks below must refuse before ever calling. */
const untouched: UploadStore = {
  presignPost: () => Promise.reject(new Error("not expected")),
  read: () => Promise.reject(new Error("store read before the reference was checked")),
  remove: () => Promise.reject(new Error("not expected")),
  write: () => Promise.reject(new Error("not expected")),
};

/** memoryStore is an upload store in a Map; `failWrite` makes the write of that (1-based) call fail, as an S3 outage would. */
function memoryStore(failWrite?: number): UploadStore & { objects: Map<string, Buffer> } {
  const objects = new Map<string, Buffer>();
  let writes = 0;
  return {
    objects,
    presignPost: () => Promise.reject(new Error("not expected")),
    read: async (key) => objects.get(key),
    remove: async (key) => {
      objects.delete(key);
    },
    write: async (key, bytes) => {
      writes += 1;
      const call = writes;
      // Let the other writes of the batch land first, so the failure comes half way.
      await new Promise((resolve) => setImmediate(resolve));
      if (call === failWrite) throw new Error("S3 said 503 SlowDown");
      objects.set(key, Buffer.from(bytes));
    },
  };
}

describe("upload references", () => {
  it("carry the issue time and the owner's tag, and name an object in the owner's folder", () => {
    const at = new Date("2026-11-23T00:00:00Z");
    const reference = newUploadReference("k_abc", at);
    const match = UPLOAD_REFERENCE.exec(reference)!;
    expect(parseInt(match[1]!, 36)).toBe(at.getTime() / 1000);
    expect(match[2]).toBe(ownerTag("k_abc"));
    expect(ownerTag("k_abc")).not.toBe(ownerTag("k_abd"));
    expect(uploadObjectKey(reference)).toBe(`uploads/${ownerTag("k_abc")}/${reference}`);
    expect(newUploadReference("k_abc", at)).not.toBe(reference);
  });

  it("are refused without reading the store when malformed (400), expired or another key's (404)", async () => {
    const at = new Date("2026-11-23T00:00:00Z");
    const reference = newUploadReference("k_abc", at);
    const attempt = (keyId: string | undefined, ref: string, now: Date) =>
      readUpload(keyId, ref, { store: untouched, settings, now: () => now }).catch((error: unknown) => error);

    const malformed = await attempt("k_abc", "uploads/../identity.pem", at);
    expect(malformed).toBeInstanceOf(SignetError);
    expect((malformed as SignetError).code).toBe("VALIDATION_ERROR");

    const expired = (await attempt("k_abc", reference, new Date(at.getTime() + 3601_000))) as SignetError;
    expect(expired.code).toBe("NOT_FOUND");
    expect(expired.message).toContain("expired at 2026-11-23T01:00:00.000Z");

    const foreign = (await attempt("k_other", reference, at)) as SignetError;
    expect(foreign.code).toBe("NOT_FOUND");
    expect(foreign.message).toContain("belongs to another key");
  });
});

describe("documents Signet keeps as uploads (split's parts)", () => {
  const at = new Date("2026-11-23T00:00:00.500Z");
  const parts = Array.from({ length: 20 }, (_, index) => Buffer.from(`%PDF-1.7 part ${index + 1}`));

  it("are uploads of the key: read back by it until the TTL, 404 for another key, expiry as readUpload counts it", async () => {
    const store = memoryStore();
    const deps = { store, settings, now: () => at };
    const stored = await storeUploads("k_abc", parts, deps);
    expect(stored).toHaveLength(20);
    expect(new Set(stored.map((part) => part.upload)).size).toBe(20);
    expect(stored[0]).toMatchObject({ bytes: parts[0]!.length, expiresAt: "2026-11-23T01:00:00.000Z" });
    for (const [index, part] of stored.entries()) {
      expect((await readUpload("k_abc", part.upload, deps)).bytes.toString()).toBe(`%PDF-1.7 part ${index + 1}`);
    }
    const foreign = await readUpload("k_other", stored[0]!.upload, deps).catch((error: unknown) => error);
    expect((foreign as SignetError).code).toBe("NOT_FOUND");
    const late = await readUpload("k_abc", stored[0]!.upload, { ...deps, now: () => new Date(Date.parse(stored[0]!.expiresAt) + 1000) }).catch(
      (error: unknown) => error,
    );
    expect((late as SignetError).message).toContain(`expired at ${stored[0]!.expiresAt}`);
  });

  it("leave nothing behind when a write fails half way, and refuse a part over the limit before writing any", async () => {
    const failing = memoryStore(11);
    const error = await storeUploads("k_abc", parts, { store: failing, settings, now: () => at }).catch((thrown: unknown) => thrown);
    expect((error as SignetError).code).toBe("SERVICE_UNAVAILABLE");
    expect(failing.objects.size).toBe(0);

    const store = memoryStore();
    const small = { ...settings, maxBytes: 20 };
    const tooLarge = await storeUploads("k_abc", [Buffer.alloc(10), Buffer.alloc(21)], { store, settings: small, now: () => at }).catch(
      (thrown: unknown) => thrown,
    );
    expect((tooLarge as SignetError).code).toBe("PAYLOAD_TOO_LARGE");
    expect((tooLarge as SignetError).message).toContain("Part 2");
    expect(store.objects.size).toBe(0);
  });
});

describe("OpenAPI", () => {
  const document = openApiDocument("0.0.0-test") as any;

  it("describes POST /v1/uploads behind the API key, and the limits that hold on AWS", () => {
    const operation = document.paths["/v1/uploads"].post;
    expect(operation.security).toEqual([{ bearerAuth: [] }]);
    expect(
      Object.keys(operation.responses["200"].content["application/json"].schema.properties ?? document.components.schemas.UploadGrant.properties).sort(),
    ).toEqual(["expiresAt", "fields", "maxBytes", "upload", "url"]);
    expect(document.info.description).toMatch(/about 3\.3 MB of document as base64 JSON, about 4\.5 MB as a multipart file/);
    expect(document.info.description).toContain("POST /v1/uploads");
  });

  it("lets convert take ?upload= instead of a body, and document inputs take upload (and an encrypted PDF's password)", () => {
    const convert = document.paths["/v1/convert"].post;
    expect(convert.parameters.map((parameter: { name: string }) => parameter.name)).toContain("upload");
    expect(convert.requestBody.required).toBe(false);
    expect(Object.keys(document.components.schemas.DocumentInput.properties)).toEqual(["base64", "url", "upload", "password"]);
  });
});
