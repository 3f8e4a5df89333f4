import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLocalIdentityStore, localNoRevocationHint } from "#adapters/local-identity-store.ts";
import { createOwnCrlFetcher } from "#adapters/own-crl-fetcher.ts";
import { awsNoRevocationHint, createS3IdentityStore } from "#adapters/s3-identity-store.ts";
import { issueCrl } from "#domain/pki/crl.ts";
import { signDocument } from "#domain/signing/sign-document.ts";
import { rootKeyFileName } from "#domain/signing/identity-store.ts";
import { revocationSources } from "#domain/signing/ltv.ts";
import { generateIdentity, generateLocalIdentity, identityToPem, parsePemIdentity, rootCertificate } from "#domain/signing/signing-identity.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { certificateText, checkCrl } from "#test/helpers/pki/openssl.ts";
import { scratchDir } from "#test/helpers/scratch.ts";
import { testFonts } from "#test/helpers/test-fonts.ts";

// The local identity keeps its root CA's key to sign the CRL the local server
// serves, and its signing certificate names that CRL; identities without one say why B-LT is out of reach.

const crlUrl = "http://localhost:41234/v1/verify/crl";

describe("a generated local identity", () => {
  it("keeps its root (key and certificate) in identity-root.pem, mode 0600, and names the CRL URL in the signing certificate", async () => {
    const dir = join(scratchDir("crl-identity"), "identity");
    const identity = await createLocalIdentityStore({ dir, p12Password: "", crlUrl: () => crlUrl }).load();
    const file = join(dir, rootKeyFileName);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const root = parsePemIdentity(readFileSync(file, "utf8"));
    expect(root.certificate.fingerprint256).toBe(rootCertificate(identity).fingerprint256);
    expect(identity.crlIssuer?.certificate.fingerprint256).toBe(root.certificate.fingerprint256);
    expect(identity.revocationProblem).toBeUndefined();
    expect(revocationSources(identity.certificate)).toEqual([crlUrl]);
    writeFileSync(join(dir, "leaf.pem"), identity.certificate.toString());
    expect(certificateText(join(dir, "leaf.pem"), "crlDistributionPoints")).toContain(`URI:${crlUrl}`);
    // identity.pem keeps holding the signing key and the chain only: the root key is in its own file.
    expect(parsePemIdentity(readFileSync(join(dir, "identity.pem"), "utf8")).signer.publicKey.equals(identity.signer.publicKey)).toBe(true);
    expect(readFileSync(join(dir, "identity.pem"), "utf8").match(/PRIVATE KEY-----/g)).toHaveLength(2);
    // Loaded again (a restart): the same root, still able to sign CRLs.
    const again = await createLocalIdentityStore({ dir, p12Password: "", crlUrl: () => "http://localhost:1/other" }).load();
    expect(again.crlIssuer?.certificate.fingerprint256).toBe(root.certificate.fingerprint256);
    expect(revocationSources(again.certificate)).toEqual([crlUrl]);
  }, 30_000);

  it("from before this change (no root file, no CRL distribution point) still loads, and says how to get a CRL-capable one", async () => {
    const dir = scratchDir("crl-old-identity");
    const { identity } = await generateLocalIdentity();
    writeFileSync(join(dir, "identity.pem"), identityToPem(identity));
    const loaded = await createLocalIdentityStore({ dir, p12Password: "", crlUrl: () => crlUrl }).load();
    expect(loaded.certificate.fingerprint256).toBe(identity.certificate.fingerprint256);
    expect(loaded.crlIssuer).toBeUndefined();
    expect(loaded.revocationProblem).toBe(localNoRevocationHint);
    expect(localNoRevocationHint).toMatch(/move the identity folder of the data folder .* aside and restart/);
  }, 30_000);

  it("whose root file belongs to another root is not used to sign CRLs, and B-LT is refused naming the file", async () => {
    const dir = scratchDir("crl-mismatch");
    const { identity } = await generateLocalIdentity({ crlUrl });
    const { root: stranger } = await generateLocalIdentity();
    writeFileSync(join(dir, "identity.pem"), identityToPem(identity));
    writeFileSync(join(dir, rootKeyFileName), identityToPem(stranger));
    const loaded = await createLocalIdentityStore({ dir, p12Password: "", crlUrl: () => crlUrl }).load();
    expect(loaded.crlIssuer).toBeUndefined();
    expect(loaded.revocationProblem).toContain(rootKeyFileName);
  }, 30_000);

  it("on AWS (S3 store) keeps no root key and refuses B-LT up front, saying an identity from a CA is needed", async () => {
    const objects = new Map<string, Buffer>();
    const client = {
      async send(command: { constructor: { name: string }; input: { Key: string; Body?: string } }) {
        const key = command.input.Key;
        if (command.constructor.name === "GetObjectCommand") {
          const body = objects.get(key);
          if (!body) throw Object.assign(new (await import("@aws-sdk/client-s3")).NoSuchKey({ message: "missing", $metadata: {} }));
          return { Body: { transformToByteArray: async () => new Uint8Array(body) } };
        }
        objects.set(key, Buffer.from(command.input.Body ?? ""));
        return {};
      },
    };
    const identity = await createS3IdentityStore({ bucket: "b", p12Password: "", client: client as never }).load();
    expect([...objects.keys()].sort()).toEqual(["identity-chain.pem", "identity.pem"]);
    expect(identity.crlIssuer).toBeUndefined();
    expect(revocationSources(identity.certificate)).toEqual([]);
    expect(identity.revocationProblem).toBe(awsNoRevocationHint);
  }, 30_000);

  it("an operator's identity gets no verdict from the store (its CA's revocation data is checked when signing)", async () => {
    const dir = scratchDir("crl-operator");
    const root = await generateIdentity({ keyType: "EC", commonName: "Operator Root", isCa: true });
    writeFileSync(join(dir, "identity.pem"), identityToPem(await generateIdentity({ keyType: "EC", commonName: "Operator Leaf", issuer: root })));
    const loaded = await createLocalIdentityStore({ dir, p12Password: "", crlUrl: () => crlUrl }).load();
    expect(loaded.crlIssuer).toBeUndefined();
    expect(loaded.revocationProblem).toBeUndefined();
  });
});

describe("signing at B-LT with an identity that cannot have revocation data", () => {
  it("is LEVEL_UNAVAILABLE with the store's hint before the TSA is asked or anything is signed; B-B still signs", async () => {
    const dir = scratchDir("crl-old-sign");
    writeFileSync(join(dir, "identity.pem"), identityToPem((await generateLocalIdentity()).identity));
    const calls: string[] = [];
    const refuse = (what: string) => () => {
      calls.push(what);
      return Promise.reject(new Error(`no ${what} in this test`));
    };
    const deps = {
      fetcher: { fetch: refuse("fetch") },
      revocationFetcher: { fetch: refuse("revocation fetch") },
      converter: { convert: refuse("conversion") },
      identities: createLocalIdentityStore({ dir, p12Password: "", crlUrl: () => crlUrl }),
      fonts: testFonts,
      limits: { maxDocumentBytes: 1 << 24, maxEntries: 5000, maxUncompressedBytes: 1 << 27, maxAuditEvents: 100, maxMetadataBytes: 16_384 },
      timestamper: { timestamp: refuse("timestamp"), timestampDigest: refuse("timestamp") },
    };
    const input = {
      document: { base64: (await makePdf(1)).toString("base64") },
      signer: { name: "Ada Lovelace", email: "ada@example.com" },
      auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
    };
    for (const level of ["B-LT", "B-LTA"] as const) {
      await expect(signDocument({ ...input, level }, deps)).rejects.toMatchObject({ code: "LEVEL_UNAVAILABLE", message: localNoRevocationHint });
    }
    expect(calls).toEqual([]);
    // B-B with the same identity signs (no TSA asked): the old identity keeps working.
    const signed = await signDocument({ ...input, level: "B-B" }, deps);
    expect(signed.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(calls).toEqual([]);
  }, 30_000);
});

describe("issueCrl", () => {
  it("signs an empty v2 CRL that openssl verifies with the root: thisUpdate now, nextUpdate in 7 days, a CRL number", async () => {
    const { root } = await generateLocalIdentity();
    const dir = scratchDir("crl-issue");
    writeFileSync(join(dir, "root.pem"), root.certificate.toString());
    const now = new Date("2026-11-23T03:00:00Z");
    writeFileSync(join(dir, "root.crl"), await issueCrl(root, { now }));
    const checked = checkCrl(join(dir, "root.crl"), join(dir, "root.pem"));
    const text = checked.stdout;
    expect(text).toMatch(/Version 2/);
    expect(text).toMatch(/Issuer: CN ?= ?Signet Local Root CA/);
    expect(text).toMatch(/Last Update: Nov 23 03:00:00 2026 GMT/);
    expect(text).toMatch(/Next Update: Nov 30 03:00:00 2026 GMT/);
    expect(text).toMatch(/X509v3 CRL Number:\s+\d+/);
    expect(text).toMatch(/No Revoked Certificates/);
    // openssl reports the verdict on stderr.
    expect(checked.stderr).toMatch(/verify OK/);
    // Signed by another key, the same CRL does not verify.
    const { root: other } = await generateLocalIdentity();
    writeFileSync(join(dir, "forged.crl"), await issueCrl({ ...root, signer: other.signer }, { now }));
    expect(checkCrl(join(dir, "forged.crl"), join(dir, "root.pem")).stderr).not.toMatch(/verify OK/);
  }, 30_000);
});

describe("the own-CRL fetcher", () => {
  const served: string[] = [];
  const inner: Fetcher = {
    async fetch(url) {
      served.push(url);
      return { bytes: Buffer.from("inner") };
    },
  };
  const fetcher = createOwnCrlFetcher(inner, { url: () => crlUrl, crl: async () => Buffer.from("own crl") });
  const options = { maxBytes: 1024, what: "the CRL" };

  it.each([
    // url, answered by
    [crlUrl, "own"],
    ["http://crl.example.com/root.crl", "inner"],
    ["http://127.0.0.1:9/root.crl", "inner"], // the safe fetcher refuses it: loopback stays closed
  ])("%s is answered by %s", async (url, by) => {
    served.length = 0;
    const answer = await fetcher.fetch(url, options);
    expect(answer.bytes.toString()).toBe(by === "own" ? "own crl" : "inner");
    expect(served).toEqual(by === "own" ? [] : [url]);
  });

  it("turns 'no CRL here' for its own URL into LEVEL_UNAVAILABLE naming the URL (not a 404 from sign)", async () => {
    const { SignetError } = await import("#domain/shared/errors.ts");
    const without = createOwnCrlFetcher(inner, {
      url: () => crlUrl,
      crl: () => Promise.reject(new SignetError("NOT_FOUND", "This server publishes no CRL.")),
    });
    await expect(without.fetch(crlUrl, options)).rejects.toMatchObject({
      code: "LEVEL_UNAVAILABLE",
      message: `B-LT needs the CRL at ${crlUrl}, and this server cannot issue it: This server publishes no CRL.`,
    });
  });

  it.each(["http://localhost:5555/v1/verify/crl", "http://127.0.0.1:41234/v1/verify/crl", "http://localhost:41234/v1/verify/crl?x"])(
    "%s (a local CRL URL that is not this server's) fails naming both URLs",
    async (url) => {
      await expect(fetcher.fetch(url, options)).rejects.toMatchObject({
        code: "FETCH_FAILED",
        message: expect.stringMatching(new RegExp(`${url.replace(/[.?]/g, "\\$&")} is not this server's CRL \\(${crlUrl.replace(/\./g, "\\.")}\\)`)),
      });
    },
  );
});
