// npm run bench:forms-signed — filling a form after Signet signed it (issue 39, item 3): every form
// of the corpus (test/fixtures/forms) is signed through the local server (B-B, no fields), then one
// check box (flipped from its current state) and one text field are filled with POST /v1/annotate.
// Counted: pyHanko 0.20.1's verdict on the result (a verdict at all, and its modification level),
// /v1/verify's, and whether poppler (pdftoppm -r 36 -gray) draws the form's own pages as before
// signing: every page after signing (the split of merged check boxes must not show), and after the
// fill every page that holds none of the two filled widgets.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ListedField } from "#domain/pdf-forms/list-form.ts";
import { listPdfForm } from "#domain/pdf-forms/read-form-file.ts";
import { obtainKey, startLocalApi } from "#test/helpers/local-api.ts";
import { pyhankoOutcome } from "#test/helpers/signature-checks.ts";

const api = await startLocalApi("bench-forms-signed", { SIGNET_TABLE: "signet-bench-forms-signed", SIGNET_CONVERSION_MODE: "oneshot" });
const key = await obtainKey(api, "bench-forms-signed");
const dir = "test/fixtures/forms";
const work = mkdtempSync(join(tmpdir(), "signet-bench-forms-signed-"));
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as { forms: Array<{ file: string; pages: number }> };

/** render is a page as grey pixels (pdftoppm -r 36 -gray), or undefined when poppler cannot draw it. */
function render(pdf: Buffer, page: number, name: string): Buffer | undefined {
  const file = join(work, name);
  writeFileSync(file, pdf);
  try {
    return execFileSync("pdftoppm", ["-gray", "-r", "36", "-f", String(page), "-l", String(page), file], {
      maxBuffer: 1 << 28,
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch {
    return undefined;
  }
}

/** post POSTs a JSON body with the key; once more when pyHanko's synchronous run had a kept-alive connection reset. */
const post = (path: string, body: unknown) => api.postJson(path, body, key).catch(() => api.postJson(path, body, key));
const base64 = (pdf: Buffer) => ({ base64: pdf.toString("base64") });
const placed = (field: ListedField) => !field.flags.readOnly && field.widgets.some((widget) => widget.page !== null && widget.rect);

const totals = {
  forms: 0,
  signed: 0,
  filled: 0,
  checkBoxes: 0,
  verdicts: 0,
  formFilling: 0,
  verifyAgrees: 0,
  pagesSame: 0,
  pages: 0,
  fillPagesSame: 0,
  fillPages: 0,
};
const notes: string[] = [];

/** fillsFor picks the fill: the first placed writable check box, flipped, and the first placed writable text field. */
function fillsFor(fields: ListedField[]): Array<{ name: string; value: string | boolean; field: ListedField }> {
  const box = fields.find((field) => field.type === "checkbox" && placed(field));
  const text = fields.find((field) => field.type === "text" && placed(field) && (field.flags.maxLength ?? 9) >= 1);
  return [
    ...(box ? [{ name: box.name, value: box.value === null || box.value === "Off", field: box }] : []),
    ...(text ? [{ name: text.name, value: "Z", field: text }] : []),
  ];
}

/** samePages counts the pages (1-based, of `pages`) that poppler draws alike in two PDFs. */
function samePages(a: Buffer, b: Buffer, pages: number[], tag: string): number {
  return pages.filter((page) => {
    const [x, y] = [render(a, page, `${tag}-a.pdf`), render(b, page, `${tag}-b.pdf`)];
    return x !== undefined && y !== undefined && x.equals(y);
  }).length;
}

async function benchForm(file: string, pages: number): Promise<void> {
  const original = readFileSync(join(dir, file));
  totals.forms++;
  const signing = await post("/v1/sign", {
    document: base64(original),
    signer: { name: "Ada Lovelace", email: "ada@example.com" },
    auditTrail: [{ type: "submit", timestamp: "2026-11-27T09:58:00Z" }],
    level: "B-B",
  });
  if (signing.status !== 200) return void notes.push(`${file}: sign ${signing.status} ${signing.json.code}`);
  totals.signed++;
  const signed = Buffer.from(signing.json.document.base64 as string, "base64");
  const all = Array.from({ length: pages }, (_, index) => index + 1);
  totals.pages += pages;
  totals.pagesSame += samePages(original, signed, all, "signed");
  const fills = fillsFor((await listPdfForm(signed)).fields);
  if (fills.some((fill) => fill.field.type === "checkbox")) totals.checkBoxes++;
  const filling = await post("/v1/annotate", { document: base64(signed), fields: fills.map(({ name, value }) => ({ name, value })) });
  if (filling.status !== 200) return void notes.push(`${file}: annotate ${filling.status} ${filling.json.code} ${filling.json.message}`);
  totals.filled++;
  const filled = Buffer.from(String(filling.json.document.base64).replace(/^data:[^,]*,/, ""), "base64");
  const touched = new Set(fills.flatMap((fill) => fill.field.widgets.map((widget) => widget.page)));
  const untouched = all.filter((page) => !touched.has(page));
  totals.fillPages += untouched.length;
  totals.fillPagesSame += samePages(signed, filled, untouched, "filled");
  const verified = await post("/v1/verify", { document: base64(filled) });
  const ours = (verified.json.signatures ?? []).map((signature: { modificationLevel: string }) => signature.modificationLevel);
  // pyHanko may take minutes on some files: a verdict must come within 90 s (at load).
  const outcome = pyhankoOutcome(filled, [], { timeoutMs: 90_000 });
  if (outcome.kind !== "verdict") {
    const why = outcome.kind === "no verdict" ? outcome.crashes.map((crash) => crash.noVerdict.slice(0, 80)).join("; ") : "timed out after 90 s";
    return void notes.push(`${file}: pyHanko no verdict (${why})`);
  }
  const theirs = outcome.signatures.map((signature) => `${signature.modificationLevel}${signature.intact && signature.valid ? "" : " (not intact/valid)"}`);
  totals.verdicts++;
  const last = theirs.at(-1) ?? "";
  if (theirs.every((level) => level === "FORM_FILLING")) totals.formFilling++;
  else notes.push(`${file}: pyHanko ${theirs.join(", ")}`);
  const agree = theirs.length === ours.length && ours.every((level: string, index: number) => level.toUpperCase() === theirs[index]);
  if (agree) totals.verifyAgrees++;
  else notes.push(`${file}: /v1/verify ${verified.json.valid ? "valid" : "invalid"} ${ours.join(", ")} vs pyHanko ${last}`);
  await new Promise((resolve) => setTimeout(resolve, 20)); // pyHanko blocked the event loop: let idle connections close
}

// FORMS=a.pdf,b.pdf measures only those corpus files (all by default).
const only = process.env.FORMS?.split(",");
for (const form of manifest.forms.filter((candidate: { file: string }) => !only || only.includes(candidate.file))) {
  try {
    // A form whose requests never answer is a finding, not a reason to stop the run.
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("no answer within 180 s")), 180_000);
    });
    await Promise.race([benchForm(form.file, form.pages), stalled]).finally(() => clearTimeout(timer));
  } catch (error) {
    notes.push(`${form.file}: crash ${(error as Error).message.slice(0, 160)}`);
  }
}
console.log(notes.join("\n"));
console.log(
  `forms ${totals.forms}, signed ${totals.signed}, filled after signing ${totals.filled} (${totals.checkBoxes} with a check box); pyHanko verdicts ${totals.verdicts}/${totals.filled}, all FORM_FILLING ${totals.formFilling}; /v1/verify agrees ${totals.verifyAgrees}`,
);
console.log(
  `poppler: pages drawn as before after signing ${totals.pagesSame}/${totals.pages}; pages without a filled widget drawn as before after the fill ${totals.fillPagesSame}/${totals.fillPages}`,
);
await api.close();
