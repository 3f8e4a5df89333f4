import { describe, expect, it } from "vitest";
import { generateIdentity, generateLocalIdentity } from "#domain/signing/signing-identity.ts";
import { trustStatement } from "#domain/signing/trust-statement.ts";

// GET /v1/verify/key says plainly where the key lives and what readers show.
describe("trustStatement", async () => {
  const { identity: local } = await generateLocalIdentity({ keyType: "EC" });
  const operator = await generateIdentity({ keyType: "EC", commonName: "Operator CA", isCa: true });
  const operatorLeaf = await generateIdentity({ keyType: "EC", commonName: "Operator Signing", issuer: operator });
  const arn = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";

  it.each([
    [
      "Signet's root, key in KMS",
      local,
      { kind: "kms", keyArn: arn } as const,
      { location: "kms", keyId: arn },
      "signet",
      /never leaves AWS KMS.*only where someone installed that root/s,
    ],
    ["Signet's root, key file", local, { kind: "file" } as const, { location: "file" }, "signet", /key file the signing function reads into its memory/],
    ["an operator's CA, key in KMS", operatorLeaf, { kind: "kms", keyArn: arn } as const, { location: "kms", keyId: arn }, "other", /chains to CN=Operator CA/],
  ])("%s", (_name, identity, location, key, issuedBy, words) => {
    const statement = trustStatement(identity, location);
    expect(statement).toMatchObject({ key, issuedBy, attestedHardwareKey: false });
    expect(statement.readers).toMatch(words);
    // Never a promise of Adobe's green tick: that takes an AATL certificate on an attested hardware key.
    expect(statement.readers).toMatch(/Adobe Approved Trust List \(AATL\).*attested hardware.*KMS key is not/s);
  });
});
