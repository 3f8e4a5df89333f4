// Field locks (FieldMDP, issue 39) through the local server: a signature into a field whose /Lock
// locks fields records the lock; afterwards an unlocked field fills as form filling, a locked one
// is refused (409), and a forger's update of a locked field makes the signature invalid in both
// Signet's verify and pyHanko.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PDF, PdfString } from "@libpdf/core";
import { obtainKey, postOnOwnConnection, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { runPyhanko } from "#test/helpers/pyhanko.ts";
import { scratchDir } from "#test/helpers/scratch.ts";
import { holdsInPyhanko, pyhankoValidate } from "#test/helpers/signature-checks.ts";

let api: LocalApi;
let key: string;
// pyHanko's own test form: an empty signature field Sig1 and the text fields TextInput.TextField1 and 2.
const minimal = readFileSync(new URL("../fixtures/forms/pyhanko-minimal-with-textfield-group.pdf", import.meta.url));
const LOCKED = "TextInput.TextField1";
const OPEN = "TextInput.TextField2";

beforeAll(async () => {
  api = await startLocalApi("forms-lock", { SIGNET_TABLE: "signet-forms-lock" });
  key = await obtainKey(api, "forms-lock");
}, 90_000);

afterAll(async () => {
  await api?.close();
});

/** post sends a JSON body on a connection of its own (pyHanko runs synchronously in this process). */
function post(path: string, body: unknown, auth = true): Promise<{ status: number; json: Record<string, any> }> {
  return postOnOwnConnection(`${api.url}${path}`, body, auth ? key : undefined);
}

const document = (pdf: Buffer) => ({ base64: pdf.toString("base64") });
const pdfOf = (json: Record<string, any>) => Buffer.from(String(json.document.base64).replace("data:application/pdf;base64,", ""), "base64");

/** withLockedField adds the empty signature field "Approval" with /Lock (action, fields, P), written by pyHanko. */
function withLockedField(action: "All" | "Include" | "Exclude", p: 1 | 2 | 3 | undefined, fields: string[]): Buffer {
  const dir = scratchDir("forms-lock");
  writeFileSync(join(dir, "in.pdf"), minimal);
  const run = runPyhanko("pyhanko-lock-field.py", [join(dir, "in.pdf"), join(dir, "out.pdf"), "Approval", action, p ? String(p) : "-", ...fields]);
  expect(run.status, run.stderr).toBe(0);
  return readFileSync(join(dir, "out.pdf"));
}

const signBody = (pdf: Buffer) => ({
  document: document(pdf),
  signer: { name: "Ada Lovelace", email: "ada@example.com" },
  auditTrail: [{ type: "submit", timestamp: "2026-11-27T09:58:00Z" }],
});

async function signInto(pdf: Buffer, signatureField: Record<string, unknown>): Promise<Buffer> {
  const { status, json } = await post("/v1/sign", { ...signBody(pdf), signatureField });
  expect(status, JSON.stringify(json)).toBe(200);
  return pdfOf(json);
}

async function verify(pdf: Buffer): Promise<Record<string, any>> {
  const { status, json } = await post("/v1/verify", { document: document(pdf) }, false);
  expect(status).toBe(200);
  return json;
}

/** forge sets a text field's value in an incremental update written by libpdf (not Signet's guarded fill). */
async function forge(pdf: Buffer, name: string, value: string): Promise<Buffer> {
  const doc = await PDF.load(pdf);
  doc.getForm()!.getTextField(name)!.getDict().set("V", PdfString.fromString(value));
  const out = Buffer.from(await doc.save({ incremental: true }));
  expect(out.subarray(0, pdf.length).equals(pdf)).toBe(true);
  return out;
}

describe("a signature into a field with /Lock /Include", () => {
  let signed: Buffer;
  beforeAll(async () => {
    signed = await signInto(withLockedField("Include", undefined, [LOCKED]), { name: "Approval" });
  }, 60_000);

  it("records the lock as a FieldMDP transform; pyHanko and verify find it intact and valid", async () => {
    const text = signed.toString("latin1");
    expect(text).toMatch(/\/TransformMethod\s*\/FieldMDP/);
    expect(text).toMatch(/\/Action\s*\/Include/);
    const pyhanko = pyhankoValidate(signed);
    expect(pyhanko.signatures).toHaveLength(1);
    expect(pyhanko.signatures[0], pyhanko.output).toMatchObject({ field: "Approval", intact: true, valid: true });
    expect((await verify(signed)).valid).toBe(true);
  });

  it("an unlocked field fills: pyHanko and verify call it form filling", async () => {
    const { status, json } = await post("/v1/annotate", { document: document(signed), fields: [{ name: OPEN, value: "Grace Hopper" }] });
    expect(status, JSON.stringify(json)).toBe(200);
    const filled = pdfOf(json);
    const pyhanko = pyhankoValidate(filled);
    expect(pyhanko.signatures[0], pyhanko.output).toMatchObject({ modificationLevel: "FORM_FILLING" });
    expect(holdsInPyhanko(pyhanko.signatures[0]!), pyhanko.output).toBe(true);
    const ours = await verify(filled);
    expect(ours.valid, ours.reason).toBe(true);
    expect(ours.signatures[0]).toMatchObject({ field: "Approval", modificationLevel: "form_filling", changesPermitted: true });
  });

  it("filling the locked field through annotate is 409 WOULD_INVALIDATE_SIGNATURES naming the signature and the field", async () => {
    const { status, json } = await post("/v1/annotate", { document: document(signed), fields: [{ name: LOCKED, value: "Mallory" }] });
    expect(status).toBe(409);
    expect(json.code).toBe("WOULD_INVALIDATE_SIGNATURES");
    expect(json.message).toContain('"Approval"');
    expect(json.message).toContain(`"${LOCKED}"`);
    expect(json.details).toEqual([{ field: `fields.${LOCKED}`, issue: 'locked by signed signature field "Approval"' }]);
    // sign's fields fill through the same code.
    const viaSign = await post("/v1/sign", { ...signBody(signed), fields: [{ name: LOCKED, value: "Mallory" }] });
    expect([viaSign.status, viaSign.json.code]).toEqual([409, "WOULD_INVALIDATE_SIGNATURES"]);
  });

  it("a forger's update of the locked field: verify and pyHanko both find the signature not valid", async () => {
    const forged = await forge(signed, LOCKED, "Mallory");
    const ours = await verify(forged);
    expect(ours.valid).toBe(false);
    expect(ours.signatures[0]).toMatchObject({ field: "Approval", integrity: "ok", modificationLevel: "other", changesPermitted: false });
    expect(ours.reason).toContain("locked");
    const pyhanko = pyhankoValidate(forged);
    expect(holdsInPyhanko(pyhanko.signatures[0]!), pyhanko.output).toBe(false);
    expect(pyhanko.signatures[0]!.diff, pyhanko.output).toMatch(/form field TextInput\.TextField1 is locked/);
  });
});

describe("a lock with /P 1 (ISO 32000-2): no change after its signature", () => {
  let signed: Buffer;
  beforeAll(async () => {
    signed = await signInto(withLockedField("Include", 1, [LOCKED]), { name: "Approval" });
  }, 60_000);

  it("an unlocked field is refused too (409), and a forger's fill of it is not permitted in verify or pyHanko", async () => {
    const { status, json } = await post("/v1/annotate", { document: document(signed), fields: [{ name: OPEN, value: "Grace Hopper" }] });
    expect(status, JSON.stringify(json)).toBe(409);
    expect(json.code).toBe("WOULD_INVALIDATE_SIGNATURES");
    const second = await post("/v1/sign", signBody(signed));
    expect([second.status, second.json.code]).toEqual([409, "WOULD_INVALIDATE_SIGNATURES"]);
    const forged = await forge(signed, OPEN, "Mallory");
    const ours = await verify(forged);
    expect(ours.valid).toBe(false);
    expect(ours.signatures[0]).toMatchObject({ field: "Approval", integrity: "ok", changesPermitted: false });
    const pyhanko = pyhankoValidate(forged);
    expect(pyhanko.signatures[0], pyhanko.output).toMatchObject({ docmdpOk: false });
  });
});

describe("signatureField.lock: a new field with a lock", () => {
  it("the signature records it (pyHanko valid); the locked field is then 409, an unlocked one fills", async () => {
    const lock = { action: "include", fields: [LOCKED] };
    const signed = await signInto(minimal, { name: "Locker", page: 1, rect: [150, 100, 290, 130], lock });
    expect(signed.toString("latin1")).toMatch(/\/Type\s*\/SigFieldLock/);
    const pyhanko = pyhankoValidate(signed);
    expect(pyhanko.signatures[0], pyhanko.output).toMatchObject({ field: "Locker", intact: true, valid: true });
    const refused = await post("/v1/annotate", { document: document(signed), fields: [{ name: LOCKED, value: "Mallory" }] });
    expect(refused.status).toBe(409);
    expect(refused.json.message).toContain('"Locker"');
    const filled = await post("/v1/annotate", { document: document(signed), fields: [{ name: OPEN, value: "Grace Hopper" }] });
    expect(filled.status, JSON.stringify(filled.json)).toBe(200);
    const ours = await verify(pdfOf(filled.json));
    expect(ours.valid, ours.reason).toBe(true);
    const existing = await post("/v1/sign", { ...signBody(minimal), signatureField: { name: "Sig1", lock } });
    expect(existing.status, JSON.stringify(existing.json)).toBe(400);
    expect(existing.json.details).toContainEqual(expect.objectContaining({ field: "signatureField.lock" }));
  });
});

describe("a lock's /P under a certification that allows annotations", () => {
  it("a stamp after a signature whose lock says /P 2 is 409 (the certification's P=3 alone would allow it)", async () => {
    const certified = await post("/v1/sign", {
      ...signBody(withLockedField("Include", 2, [LOCKED])),
      certify: { permissions: 3 },
      signatureField: { name: "Sig1" },
    });
    expect(certified.status, JSON.stringify(certified.json)).toBe(200);
    const locked = await signInto(pdfOf(certified.json), { name: "Approval" });
    const stamp = { text: { value: "RECEIVED", size: 30 }, position: { anchor: "top-right" }, pages: "1" };
    const refused = await post("/v1/stamp", { document: document(locked), ...stamp });
    expect([refused.status, refused.json.code], refused.json.message).toEqual([409, "WOULD_INVALIDATE_SIGNATURES"]);
    // Before the locking signature the same stamp is an annotation the certification permits.
    const allowed = await post("/v1/stamp", { document: document(pdfOf(certified.json)), ...stamp });
    expect(allowed.status, allowed.json.message).toBe(200);
  });
});
