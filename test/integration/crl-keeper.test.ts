import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localCrlFile } from "#adapters/local-identity-store.ts";
import { CrlKeeper, crlFileName, defaultCrlPolicy } from "#domain/signing/crl-keeper.ts";
import type { CrlIssuer } from "#domain/pki/crl.ts";
import { generateLocalIdentity } from "#domain/signing/signing-identity.ts";
import { crlCaching } from "#http/responses.ts";
import { checkCrl } from "#test/helpers/pki/openssl.ts";
import { scratchDir } from "#test/helpers/scratch.ts";

// The CRL is issued once and kept beside the identity: serving it costs no signature. A new one
// is signed only when none is kept, the root changed, or it is near its nextUpdate. Signatures
// are counted at the signer port.

/** counting wraps a root so that its signatures are counted. */
function counting(root: CrlIssuer): { issuer: CrlIssuer; signatures: () => number } {
  let count = 0;
  const signer = Object.create(root.signer) as CrlIssuer["signer"];
  signer.sign = async (data) => {
    count += 1;
    return root.signer.sign(data);
  };
  return { issuer: { signer, certificate: root.certificate }, signatures: () => count };
}

const day = 86_400_000;
const start = new Date("2026-11-23T03:00:00Z");

describe("CrlKeeper", () => {
  it("signs once for 100 concurrent and 50 later reads, keeps the CRL 0600 beside the identity, and openssl verifies it with the root", async () => {
    const dir = scratchDir("crl-keeper-once");
    const { root } = await generateLocalIdentity();
    const { issuer, signatures } = counting(root);
    const keeper = new CrlKeeper(localCrlFile(dir), async () => issuer);
    const first = await Promise.all(Array.from({ length: 100 }, () => keeper.current(start)));
    for (let i = 0; i < 50; i++) await keeper.current(new Date(start.getTime() + i * 3_600_000));
    expect(signatures()).toBe(1);
    expect(new Set(first.map((crl) => crl.etag)).size).toBe(1);
    // A second keeper (another container, a restart) reads the kept one and signs nothing.
    const restarted = new CrlKeeper(localCrlFile(dir), async () => issuer);
    expect((await restarted.current(new Date(start.getTime() + day))).etag).toBe(first[0]!.etag);
    expect(signatures()).toBe(1);
    expect(statSync(join(dir, crlFileName)).mode & 0o777).toBe(0o600);
    writeFileSync(join(dir, "root.pem"), root.certificate.toString());
    const checked = checkCrl(join(dir, crlFileName), join(dir, "root.pem"));
    expect(checked.stderr).toMatch(/verify OK/);
    expect(checked.stdout).toMatch(/Last Update: Nov 23 03:00:00 2026 GMT/);
    expect(checked.stdout).toMatch(/Next Update: Nov 30 03:00:00 2026 GMT/);
    expect(checked.stdout).toMatch(/No Revoked Certificates/);
  }, 30_000);

  it("re-issues a CRL with 3 days or less before its nextUpdate, once, and keeps the new one", async () => {
    const dir = scratchDir("crl-keeper-renew");
    const { root } = await generateLocalIdentity();
    const { issuer, signatures } = counting(root);
    const keeper = new CrlKeeper(localCrlFile(dir), async () => issuer);
    const first = await keeper.current(start);
    // 3 days and 1 minute left: still this one.
    expect((await keeper.current(new Date(first.nextUpdate.getTime() - defaultCrlPolicy.renewBeforeMs - 60_000))).etag).toBe(first.etag);
    expect(signatures()).toBe(1);
    const late = new Date(first.nextUpdate.getTime() - defaultCrlPolicy.renewBeforeMs + 60_000);
    const renewed = await Promise.all(Array.from({ length: 20 }, () => keeper.current(late)));
    expect(signatures()).toBe(2);
    expect(renewed[0]!.thisUpdate).toEqual(late);
    expect(renewed[0]!.nextUpdate.getTime()).toBe(late.getTime() + 7 * day);
    expect(readFileSync(join(dir, crlFileName)).equals(renewed[0]!.der)).toBe(true);
    // Past its nextUpdate (the server was off for weeks): a new one at once.
    const weeksLater = new Date(start.getTime() + 30 * day);
    expect((await keeper.current(weeksLater)).thisUpdate).toEqual(weeksLater);
    expect(signatures()).toBe(3);
  }, 30_000);

  it("re-issues when the root changes (a new identity): the kept CRL of the old root is never served for the new one", async () => {
    const dir = scratchDir("crl-keeper-root");
    const { root: old } = await generateLocalIdentity();
    const { root: replacement } = await generateLocalIdentity();
    let current: CrlIssuer = old;
    const keeper = new CrlKeeper(localCrlFile(dir), async () => current);
    const before = await keeper.current(start);
    current = replacement;
    const after = await keeper.current(new Date(start.getTime() + 60_000));
    expect(after.etag).not.toBe(before.etag);
    writeFileSync(join(dir, "new-root.pem"), replacement.certificate.toString());
    expect(checkCrl(join(dir, crlFileName), join(dir, "new-root.pem")).stderr).toMatch(/verify OK/);
  }, 30_000);

  it("re-issues over a kept file that is not a readable CRL", async () => {
    const dir = scratchDir("crl-keeper-damaged");
    const { root } = await generateLocalIdentity();
    writeFileSync(join(dir, crlFileName), "not a CRL");
    const kept = await new CrlKeeper(localCrlFile(dir), async () => root).current(start);
    expect(readFileSync(join(dir, crlFileName)).equals(kept.der)).toBe(true);
  }, 30_000);
});

describe("crlCaching", () => {
  const crl = { thisUpdate: start, nextUpdate: new Date(start.getTime() + 7 * day), etag: '"abc"' };
  // One row: when it is served, its Cache-Control.
  it.each([
    ["just issued", start, "public, max-age=86400"],
    ["a day and an hour before nextUpdate", new Date(crl.nextUpdate.getTime() - day - 3_600_000), "public, max-age=3600"],
    ["within its last day", new Date(crl.nextUpdate.getTime() - 3_600_000), "no-cache"],
    ["past its nextUpdate", new Date(crl.nextUpdate.getTime() + day), "no-cache"],
  ])("%s: %s", (_, now, cacheControl) => {
    expect(crlCaching(crl, now)).toEqual({ "Cache-Control": cacheControl, ETag: '"abc"', "Last-Modified": "Mon, 23 Nov 2026 03:00:00 GMT" });
  });
});
