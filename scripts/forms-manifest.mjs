// npm run forms:manifest: the ground truth for the form corpus in test/fixtures/forms/, read without
// Signet's code. qpdf (--json, its acroform section and the object table) gives every terminal
// field: fully qualified name, type, flags, value, options, widgets with page and rectangle; the
// catalog gives the form kind. MuPDF (mutool run, its own parser and decryption) and poppler's
// pdfsig read each file a second time, and the manifest records where they disagree.
// `--stdout` prints the manifest instead of writing it; `--check` exits 1 when the file is stale.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const formsDir = join(root, "test/fixtures/forms");
const manifestPath = join(formsDir, "manifest.json");

// Field flag bits (ISO 32000-1, tables 221, 226, 228, 230), by the field type they apply to.
const FLAG_BITS = {
  any: { readOnly: 1, required: 2, noExport: 3 },
  Tx: { multiline: 13, password: 14, fileSelect: 21, doNotSpellCheck: 23, doNotScroll: 24, comb: 25, richText: 26 },
  Btn: { noToggleToOff: 15, radio: 16, pushbutton: 17, radiosInUnison: 26 },
  Ch: { combo: 18, edit: 19, sort: 20, multiSelect: 22, doNotSpellCheck: 23, commitOnSelChange: 27 },
  Sig: {},
};

// The second reader: a MuJS (ES5) script for `mutool run`. It walks /AcroForm /Fields itself over
// MuPDF's parser, so names, types, pages and rectangles come from a different PDF implementation.
const MUTOOL_READER = `
var doc = new PDFDocument(scriptArgs[0]);
if (doc.needsPassword()) doc.authenticatePassword("");
var pageOf = {};
for (var i = 0; i < doc.countPages(); i++) {
  var annots = doc.findPage(i).get("Annots");
  if (annots !== undefined && annots.isArray()) for (var j = 0; j < annots.length; j++) {
    var a = annots.get(j);
    if (a.isIndirect()) pageOf[a.asIndirect()] = i + 1;
  }
}
var out = [], seen = {};
// MuPDF 1.21 gives undefined for a missing key, a null object for an explicit null.
function present(value) {
  return value !== undefined && value !== null && !value.isNull();
}
function inherited(node, key) {
  for (var n = node, depth = 0; present(n) && depth < 64; n = n.get("Parent"), depth++) {
    if (present(n.get(key))) return n.get(key);
  }
  return null;
}
function widget(w) {
  var r = w.get("Rect"), rect = [];
  if (present(r) && r.isArray()) for (var k = 0; k < r.length; k++) rect.push(r.get(k).asNumber());
  return { page: w.isIndirect() && pageOf[w.asIndirect()] ? pageOf[w.asIndirect()] : null, rect: rect };
}
function text(v) {
  if (!present(v)) return null;
  if (v.isName()) return v.asName();
  if (v.isString()) return v.asString();
  if (!v.isArray()) return "[dictionary or stream]";
  var items = [];
  for (var k = 0; k < v.length; k++) items.push(text(v.get(k)));
  return items;
}
function visit(node, prefix, depth) {
  if (depth > 64 || (node.isIndirect() && seen[node.asIndirect()])) return;
  if (node.isIndirect()) seen[node.asIndirect()] = true;
  var t = node.get("T");
  var name = present(t) ? (prefix === null ? "" : prefix + ".") + t.asString() : prefix;
  var kids = node.get("Kids"), fieldKids = [], widgetKids = [];
  if (present(kids) && kids.isArray()) for (var k = 0; k < kids.length; k++) {
    var kid = kids.get(k);
    if (present(kid)) (present(kid.get("T")) ? fieldKids : widgetKids).push(kid);
  }
  for (var f = 0; f < fieldKids.length; f++) visit(fieldKids[f], name, depth + 1);
  if (fieldKids.length > 0 && widgetKids.length === 0) return;
  var ft = inherited(node, "FT"), ff = inherited(node, "Ff");
  var ws = widgetKids.length > 0 ? widgetKids : [node];
  var entry = { name: name, type: ft ? ft.asName() : "", flags: ff ? ff.asNumber() : 0, value: text(inherited(node, "V")), widgets: [] };
  for (var w = 0; w < ws.length; w++) entry.widgets.push(widget(ws[w]));
  out.push(entry);
}
var form = doc.getTrailer().get("Root").get("AcroForm");
var fields = present(form) ? form.get("Fields") : null;
if (present(fields) && fields.isArray()) for (var x = 0; x < fields.length; x++) visit(fields.get(x), null, 0);
print(JSON.stringify({ pages: doc.countPages(), fields: out }));
`;

/** run resolves to a tool's exit code, stdout and stderr; qpdf exits 3 on warnings and pdfsig 2 without signatures, so the code is the caller's to judge. */
function run(tool, args) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(tool, args, { stdio: ["ignore", "pipe", "pipe"] });
    const stdout = [];
    const stderr = [];
    child.stdout.on("data", (chunk) => stdout.push(chunk));
    child.stderr.on("data", (chunk) => stderr.push(chunk));
    child.on("error", (error) => reject(new Error(`${tool} did not run: ${error.message}`)));
    child.on("close", (code) => resolvePromise({ code, stdout: Buffer.concat(stdout).toString("utf8"), stderr: Buffer.concat(stderr).toString("utf8") }));
  });
}

/** qpdfJson reads one file with qpdf --json (version 2) and fails loudly unless qpdf exits 0 or 3 (warnings). */
async function qpdfJson(path) {
  const { code, stdout, stderr } = await run("qpdf", ["--json=2", "--json-key=acroform", "--json-key=encrypt", "--json-key=pages", "--json-key=qpdf", path]);
  if (code !== 0 && code !== 3) throw new Error(`qpdf failed on ${path} (exit ${code}): ${stderr}`);
  const warnings = stderr
    .split("\n")
    .filter((line) => line.startsWith("WARNING: "))
    .map((line) => line.replace(/^WARNING: [^:]*: /, ""));
  return { json: JSON.parse(stdout), warnings };
}

/** decodeName is a qpdf JSON name's text: qpdf 11 writes names decoded (`/#20x` as "/ x", UTF-8 as is), so only the slash goes. */
function decodeName(name) {
  return name.slice(1);
}

/** decodeString turns a qpdf JSON v2 string ("u:text" or "b:hex") into text (UTF-16 and UTF-8 byte strings decoded). */
function decodeString(value) {
  if (value.startsWith("u:")) return value.slice(2);
  const bytes = Buffer.from(value.slice(2), "hex");
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return bytes.subarray(2).swap16().toString("utf16le");
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return bytes.subarray(3).toString("utf8");
  return bytes.toString("latin1");
}

/** PdfObjects resolves references in qpdf's object table (streams give their dictionary). */
class PdfObjects {
  #table;
  constructor(json) {
    this.#table = json.qpdf[1];
  }
  get trailer() {
    return this.#table.trailer.value;
  }
  resolve(value) {
    if (typeof value !== "string" || !/^\d+ \d+ R$/.test(value)) return value;
    const entry = this.#table[`obj:${value}`];
    if (!entry) return null;
    return entry.value !== undefined ? entry.value : entry.stream.dict;
  }
  /** get reads a key from a dictionary (given by value or reference), resolved. */
  get(dict, key) {
    const resolved = this.resolve(dict);
    return resolved && typeof resolved === "object" && !Array.isArray(resolved) ? this.resolve(resolved[key]) : undefined;
  }
  /** inherited reads a field attribute from the field or its nearest ancestor that has it. */
  inherited(field, key) {
    let node = field;
    for (let depth = 0; node && depth < 64; depth++) {
      const value = this.get(node, key);
      if (value !== undefined && value !== null) return value;
      node = this.resolve(node)?.["/Parent"];
    }
    return undefined;
  }
  /** text decodes a PDF value for the manifest: strings and names as text, arrays element by element. */
  text(value) {
    const resolved = this.resolve(value);
    if (typeof resolved === "string") return resolved.startsWith("/") ? decodeName(resolved) : decodeString(resolved);
    if (Array.isArray(resolved)) return resolved.map((item) => this.text(item));
    if (resolved === undefined || resolved === null) return null;
    return typeof resolved === "object" ? "[dictionary or stream]" : resolved;
  }
}

/** fieldType names a terminal field's type as the list does. */
function fieldType(entry) {
  if (entry.fieldtype === "/Tx") return "text";
  if (entry.fieldtype === "/Sig") return "signature";
  if (entry.fieldtype === "/Ch") return entry.fieldflags & (1 << 17) ? "combo" : "list";
  if (entry.fieldtype === "/Btn") return entry.isradiobutton ? "radio" : entry.ischeckbox ? "checkbox" : "pushbutton";
  return "unknown";
}

/** flagNames lists the set field flags that matter for the field's type, by name. */
function flagNames(fieldtype, bits) {
  const table = { ...FLAG_BITS.any, ...(FLAG_BITS[fieldtype.slice(1)] ?? {}) };
  return Object.entries(table)
    .filter(([, bit]) => bits & (1 << (bit - 1)))
    .map(([name]) => name);
}

/** rectOf normalises a widget's /Rect to [left, bottom, right, top], rounded to 0.01 pt. */
function rectOf(numbers) {
  if (!Array.isArray(numbers) || numbers.length !== 4) return null;
  const [x1, y1, x2, y2] = numbers.map((n) => Math.round(Number(n) * 100) / 100);
  return [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
}

/** fieldObject is the terminal field of a widget: the widget itself, or its parent when the widget has no /T. */
function fieldObject(objects, entry) {
  const widget = objects.resolve(entry.object);
  return widget?.["/T"] === undefined && widget?.["/Parent"] ? widget["/Parent"] : entry.object;
}

/** optionsOf lists a choice field's options ({ value, label }) or a button's on-states and /Opt export values. */
function optionsOf(objects, field, type, widgets) {
  const opt = objects.resolve(objects.inherited(field, "/Opt"));
  if (type === "combo" || type === "list") {
    return (opt ?? []).map((item) => {
      const pair = objects.resolve(item);
      return Array.isArray(pair) ? { value: objects.text(pair[0]), label: objects.text(pair[1]) } : { value: objects.text(pair), label: objects.text(pair) };
    });
  }
  if (type !== "checkbox" && type !== "radio") return undefined;
  const states = [...new Set(widgets.flatMap((widget) => Object.keys(objects.get(objects.get(widget, "/AP"), "/N") ?? {}).map(decodeName)))];
  const options = { states: states.filter((state) => state !== "Off") };
  if (Array.isArray(opt)) options.exportValues = opt.map((item) => objects.text(item));
  return options;
}

/** fieldTree collects the references reachable from /AcroForm /Fields through /Kids. */
function fieldTree(objects) {
  const form = objects.get(objects.trailer["/Root"], "/AcroForm");
  const seen = new Set();
  const visit = (node) => {
    if (typeof node !== "string" || seen.has(node)) return;
    seen.add(node);
    for (const kid of objects.resolve(objects.get(node, "/Kids")) ?? []) visit(kid);
  };
  for (const field of objects.resolve(form?.["/Fields"]) ?? []) visit(field);
  return seen;
}

/** terminalFields groups qpdf's widget list by fully qualified name into the manifest's field records. */
function terminalFields(objects, entries) {
  const tree = fieldTree(objects);
  const groups = new Map();
  for (const entry of entries) groups.set(entry.fullname, [...(groups.get(entry.fullname) ?? []), entry]);
  return [...groups.entries()].map(([name, group]) => {
    const first = group[0];
    const field = fieldObject(objects, first);
    const type = fieldType(first);
    const widgets = group.map((entry) => entry.annotation.object);
    const record = { name, type, flags: flagNames(first.fieldtype, first.fieldflags) };
    // qpdf also reports widget annotations on pages that no field in /AcroForm reaches; they are kept, marked.
    if (!tree.has(field) && !group.some((entry) => tree.has(entry.annotation.object))) record.inFieldTree = false;
    const maxLength = objects.inherited(field, "/MaxLen");
    if (typeof maxLength === "number") record.maxLength = maxLength;
    const value = objects.inherited(field, "/V");
    if (type === "signature") record.signed = objects.get(value, "/Contents") !== undefined;
    else record.value = objects.text(value);
    if (type !== "signature") record.defaultValue = objects.text(objects.inherited(field, "/DV"));
    const options = optionsOf(objects, field, type, widgets);
    if (options) record.options = options;
    record.widgets = group.map((entry) => ({
      page: entry.pageposfrom1 > 0 ? entry.pageposfrom1 : null,
      rect: rectOf(objects.resolve(objects.get(entry.annotation.object, "/Rect"))?.map((n) => objects.resolve(n))),
      appearance: objects.get(entry.annotation.object, "/AP") !== undefined && objects.get(objects.get(entry.annotation.object, "/AP"), "/N") !== undefined,
      hidden: (entry.annotation.annotationflags & 2) !== 0,
    }));
    return record;
  });
}

/** catalogFacts reads what the catalog and the AcroForm dictionary say about the form. */
function catalogFacts(objects) {
  const catalog = objects.resolve(objects.trailer["/Root"]);
  const form = objects.resolve(catalog["/AcroForm"]);
  const perms = objects.resolve(catalog["/Perms"]);
  const docMdpSignature = perms?.["/DocMDP"];
  const reference = objects.resolve(objects.get(docMdpSignature, "/Reference"));
  const transform = Array.isArray(reference) ? objects.get(objects.get(reference[0], "/TransformParams"), "/P") : undefined;
  return {
    acroForm: Boolean(form),
    xfa: form?.["/XFA"] !== undefined,
    needsRendering: objects.resolve(catalog["/NeedsRendering"]) === true,
    needAppearances: objects.resolve(form?.["/NeedAppearances"]) === true,
    sigFlags: objects.resolve(form?.["/SigFlags"]) ?? 0,
    docMdpPermissions: docMdpSignature ? (transform ?? 2) : null,
    usageRights: perms?.["/UR3"] !== undefined || perms?.["/UR"] !== undefined,
  };
}

/** formKind classes a file: dynamic XFA (NeedsRendering, or XFA with no AcroForm field to fill), hybrid, AcroForm, none. */
function formKind(catalog, fields) {
  if (catalog.xfa && (catalog.needsRendering || fields.length === 0)) return "xfa-dynamic";
  if (catalog.xfa) return "xfa-hybrid";
  return fields.length > 0 ? "acroform" : "none";
}

/** encryptionFacts summarises the security handler qpdf opened the file with (null when unencrypted). */
function encryptionFacts(encrypt) {
  if (!encrypt.encrypted) return null;
  return {
    method: encrypt.parameters.method,
    bits: encrypt.parameters.bits,
    revision: encrypt.parameters.R,
    userPasswordEmpty: encrypt.userpasswordmatched,
    permissions: {
      fillForms: encrypt.capabilities.modifyforms,
      annotate: encrypt.capabilities.modifyannotations,
      modify: encrypt.capabilities.modify,
      extract: encrypt.capabilities.extract,
    },
  };
}

/** mutoolFields reads the terminal fields a second time with MuPDF. */
async function mutoolFields(path, readerPath) {
  const { code, stdout, stderr } = await run("mutool", ["run", readerPath, path]);
  const line = stdout.split("\n").find((text) => text.startsWith("{"));
  if (code !== 0 || !line) throw new Error(`mutool failed on ${path} (exit ${code}): ${stderr}`);
  return JSON.parse(line);
}

/** pdfsigCounts counts the signature fields poppler's pdfsig lists and how many of them are signed (it exits 2 when there are none). */
async function pdfsigCounts(path) {
  const { stdout } = await run("pdfsig", ["-nocert", path]);
  const blocks = stdout.split(/^Signature #\d+:$/m).slice(1);
  return { signatureFields: blocks.length, signed: blocks.filter((block) => !block.includes("is not signed")).length };
}

// MuPDF holds coordinates as 32-bit floats: rectangles agree when every side is within 0.05 pt.
const sameWidget = (a, b) => a.page === b.page && a.rect !== null && rectOf(b.rect)?.every((n, i) => Math.abs(n - a.rect[i]) <= 0.05);
const widgetText = (widget) => `${widget.page}:${(rectOf(widget.rect) ?? []).join(",")}`;

/** differences lists where MuPDF and pdfsig read a file differently from qpdf (empty when they agree). */
function differences(form, mupdf, signatures) {
  const found = [];
  if (mupdf.pages !== form.pages) found.push(`pages: qpdf ${form.pages}, mutool ${mupdf.pages}`);
  const theirs = new Map(mupdf.fields.map((field) => [field.name, field]));
  for (const field of form.fields) {
    const other = theirs.get(field.name);
    if (!other) {
      found.push(`${field.name}: not found by mutool`);
      continue;
    }
    const unmatched = [...other.widgets];
    const matchedAll = field.widgets.every((widget) => {
      const index = unmatched.findIndex((candidate) => sameWidget(widget, candidate));
      return index >= 0 && unmatched.splice(index, 1).length === 1;
    });
    if (!matchedAll || unmatched.length > 0)
      found.push(`${field.name}: widgets qpdf [${field.widgets.map(widgetText)}], mutool [${other.widgets.map(widgetText)}]`);
    if (field.type !== "signature" && JSON.stringify(field.value) !== JSON.stringify(other.value)) {
      found.push(`${field.name}: value qpdf ${JSON.stringify(field.value)}, mutool ${JSON.stringify(other.value)}`);
    }
  }
  const names = new Set(form.fields.map((field) => field.name));
  for (const name of theirs.keys()) if (!names.has(name)) found.push(`${name}: found by mutool only`);
  const signatureFields = form.fields.filter((field) => field.type === "signature");
  const signed = signatureFields.filter((field) => field.signed).length;
  if (signatures.signatureFields !== signatureFields.length)
    found.push(`signature fields: qpdf ${signatureFields.length}, pdfsig ${signatures.signatureFields}`);
  if (signatures.signed !== signed) found.push(`signed: qpdf ${signed}, pdfsig ${signatures.signed}`);
  return found;
}

/** summaryOf counts a form's terminal fields (those in the field tree), their widgets and types. */
function summaryOf(fields) {
  const inTree = fields.filter((field) => field.inFieldTree !== false);
  const byType = {};
  for (const field of inTree) byType[field.type] = (byType[field.type] ?? 0) + 1;
  return {
    fields: inTree.length,
    widgets: inTree.reduce((sum, field) => sum + field.widgets.length, 0),
    byType,
    signed: inTree.filter((field) => field.signed).length,
    withoutAppearance: inTree.filter((field) => field.widgets.some((widget) => !widget.appearance)).length,
    outsideFieldTree: fields.length - inTree.length,
  };
}

/** describeForm is one manifest entry: the file, its catalog, its fields and the second readers' verdict. */
async function describeForm(file, readerPath) {
  const path = join(formsDir, file);
  const bytes = readFileSync(path);
  const [{ json, warnings }, mupdf, signatures] = await Promise.all([qpdfJson(path), mutoolFields(path, readerPath), pdfsigCounts(path)]);
  const objects = new PdfObjects(json);
  const catalog = catalogFacts(objects);
  const fields = terminalFields(objects, json.acroform.fields);
  const summary = summaryOf(fields);
  const inTree = fields.filter((field) => field.inFieldTree !== false);
  const form = { file, bytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex"), pages: json.pages.length };
  Object.assign(form, { kind: formKind(catalog, inTree), catalog, encryption: encryptionFacts(json.encrypt), qpdfWarnings: warnings });
  const crossCheck = {
    mutool: { pages: mupdf.pages, fields: mupdf.fields.length, widgets: mupdf.fields.reduce((sum, field) => sum + field.widgets.length, 0) },
    pdfsig: signatures,
    differences: differences({ ...form, fields: inTree }, mupdf, signatures),
  };
  return { ...form, summary, crossCheck, fields };
}

/** inBatches maps items through an async function, `size` at a time, keeping their order. */
async function inBatches(items, size, fn) {
  const results = [];
  for (let start = 0; start < items.length; start += size) results.push(...(await Promise.all(items.slice(start, start + size).map(fn))));
  return results;
}

/** buildManifest reads every PDF in the corpus folder, sorted by name. */
async function buildManifest() {
  const scratch = mkdtempSync(join(tmpdir(), "forms-manifest-"));
  try {
    const readerPath = join(scratch, "reader.js");
    writeFileSync(readerPath, MUTOOL_READER);
    const files = readdirSync(formsDir)
      .filter((name) => name.endsWith(".pdf"))
      .sort();
    const tools = { qpdf: (await run("qpdf", ["--version"])).stdout.split("\n")[0], mutool: (await run("mutool", ["-v"])).stderr.trim() };
    return { generatedBy: "scripts/forms-manifest.mjs", tools, forms: await inBatches(files, 4, (file) => describeForm(file, readerPath)) };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const text = `${JSON.stringify(await buildManifest(), null, 2)}\n`;
if (process.argv.includes("--stdout")) process.stdout.write(text);
else if (process.argv.includes("--check")) {
  if (readFileSync(manifestPath, "utf8") !== text) {
    process.stderr.write("test/fixtures/forms/manifest.json is stale: run npm run forms:manifest\n");
    process.exit(1);
  }
} else {
  writeFileSync(manifestPath, text);
  process.stdout.write(`wrote ${manifestPath}\n`);
}
