import { describe, expect, it } from "vitest";
import { SignetError } from "#domain/shared/errors.ts";
import { UPLOAD_REFERENCE, newUploadReference, ownerTag, readUpload, uploadObjectKey, type UploadStore } from "#domain/shared/upload.ts";
import { openApiDocument } from "#http/openapi.ts";

// Upload references and their place in the API description.
const settings = { maxBytes: 25 * 1024 * 1024, postExpirySeconds: 900, referenceTtlSeconds: 3600 };
/** untouched is a store the checks below must refuse before ever calling. */
const untouched: UploadStore = {
  presignPost: () => Promise.reject(new Error("not expected")),
  read: () => Promise.reject(new Error("store read before the reference was checked")),
  remove: () => Promise.reject(new Error("not expected")),
};

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
