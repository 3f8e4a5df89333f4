import type { Element } from "@xmldom/xmldom";
import { SignetError } from "#domain/shared/errors.ts";
import type { ErrorDetail } from "#domain/shared/errors.ts";
import { describeControl, type Control } from "#domain/docx/template.ts";
import type { FillBudget } from "#domain/docx/fill-budget.ts";
import type { TimeSlice } from "#domain/shared/time-slice.ts";
import { NS, attr, childElements, cloneInto, descendants, firstChild, removeChildren, serializeNode, type XmlWriter } from "#domain/docx/xml.ts";

/** TextOptions tune a text fill. */
export interface TextOptions {
  /** Keep the run properties of the control's first run (default true). */
  keepTextNodeStyles: boolean;
}

const PLACEHOLDER_STYLES = new Set(["placeholdertext", "placeholder text"]);
const XML_NAMESPACE = "http://www.w3.org/XML/1998/namespace";

/** contentOf returns a control's w:sdtContent, creating it when missing. */
function contentOf(control: Control): Element {
  const existing = firstChild(control.element, NS.w, "sdtContent");
  if (existing) return existing;
  const created = control.part.writer.el("w", "sdtContent");
  control.element.appendChild(created);
  return created;
}

/** clearPlaceholderState removes w:showingPlcHdr so Word stops showing the value as grey placeholder text. */
function clearPlaceholderState(control: Control): void {
  const properties = firstChild(control.element, NS.w, "sdtPr");
  const showing = properties ? firstChild(properties, NS.w, "showingPlcHdr") : undefined;
  if (showing) properties!.removeChild(showing);
}

/** cleanRunProperties clones run properties without the placeholder character style. */
function cleanRunProperties(rPr: Element | undefined): Element | undefined {
  if (!rPr) return undefined;
  const copy = cloneInto(rPr.ownerDocument!, rPr);
  for (const style of childElements(copy, NS.w, "rStyle")) {
    if (PLACEHOLDER_STYLES.has((attr(style, NS.w, "val") ?? "").toLowerCase())) copy.removeChild(style);
  }
  return copy;
}

/** firstRunProperties finds the formatting the value should keep: the first run's, else the control's own. */
function firstRunProperties(control: Control, scope: Element): Element | undefined {
  const run = descendants(scope, NS.w, "r")[0];
  if (run) return firstChild(run, NS.w, "rPr");
  const properties = firstChild(control.element, NS.w, "sdtPr");
  return properties ? firstChild(properties, NS.w, "rPr") : undefined;
}

/** textRun builds one w:r holding text with line breaks (w:br) and tabs (w:tab). */
function textRun(writer: XmlWriter, value: string, rPr: Element | undefined): Element {
  const run = writer.el("w", "r");
  if (rPr) run.appendChild(rPr);
  value.split(/\r\n|\r|\n/).forEach((line, lineIndex) => {
    if (lineIndex > 0) run.appendChild(writer.el("w", "br"));
    line.split("\t").forEach((piece, pieceIndex) => {
      if (pieceIndex > 0) run.appendChild(writer.el("w", "tab"));
      if (piece === "") return;
      const text = writer.el("w", "t");
      // In the XML namespace, so a copy of this run (a repeat of a filled item) keeps the attribute's namespace.
      text.setAttributeNS(XML_NAMESPACE, "xml:space", "preserve");
      text.appendChild(writer.text(piece));
      run.appendChild(text);
    });
  });
  return run;
}

/**
 * blockTarget prepares a block control for new content: keeps the first paragraph (and a cell's
 * tcPr) with its paragraph properties, removes everything else, and returns that paragraph.
 */
function blockTarget(control: Control): { paragraph: Element; rPr: Element | undefined } {
  const content = contentOf(control);
  const cell = firstChild(content, NS.w, "tc");
  const container = cell ?? content;
  const paragraph = firstChild(container, NS.w, "p") ?? control.part.writer.el("w", "p");
  const rPr = firstRunProperties(control, paragraph);
  for (const child of childElements(container)) {
    if (child !== paragraph && !(child.namespaceURI === NS.w && child.localName === "tcPr")) container.removeChild(child);
  }
  if (!paragraph.parentNode) container.appendChild(paragraph);
  for (const child of childElements(paragraph)) {
    if (!(child.namespaceURI === NS.w && child.localName === "pPr")) paragraph.removeChild(child);
  }
  const pPr = firstChild(paragraph, NS.w, "pPr");
  const markProperties = pPr ? firstChild(pPr, NS.w, "rPr") : undefined;
  if (markProperties) pPr!.replaceChild(cleanRunProperties(markProperties)!, markProperties);
  return { paragraph, rPr };
}

/** placeRun puts one run as the whole content of an inline or block control. */
export function placeRun(control: Control, build: (rPr: Element | undefined) => Element): void {
  if (control.kind === "text" || (control.kind === "picture" && !hasBlockContent(control))) {
    const content = contentOf(control);
    const rPr = firstRunProperties(control, content);
    removeChildren(content);
    content.appendChild(build(rPr));
  } else {
    const { paragraph, rPr } = blockTarget(control);
    paragraph.appendChild(build(rPr));
  }
  clearPlaceholderState(control);
}

function hasBlockContent(control: Control): boolean {
  const content = firstChild(control.element, NS.w, "sdtContent");
  return !!content && childElements(content).some((child) => child.namespaceURI === NS.w && (child.localName === "p" || child.localName === "tc"));
}

/** fillText writes a text value into an inline or block control. */
export function fillText(control: Control, value: string, options: TextOptions): void {
  const writer = control.part.writer;
  placeRun(control, (rPr) => textRun(writer, value, options.keepTextNodeStyles ? cleanRunProperties(rPr) : undefined));
}

/** fillCheckbox sets a Word 2010 checkbox control: w14:checked and the displayed symbol. */
export function fillCheckbox(control: Control, checked: boolean): void {
  const properties = firstChild(control.element, NS.w, "sdtPr")!;
  const box = firstChild(properties, NS.w14, "checkbox")!;
  let state = firstChild(box, NS.w14, "checked");
  if (!state) {
    state = control.part.writer.el("w14", "checked");
    box.insertBefore(state, box.firstChild);
  }
  state.setAttributeNS(NS.w14, state.prefix ? `${state.prefix}:val` : "val", checked ? "1" : "0");
  const symbolState = firstChild(box, NS.w14, checked ? "checkedState" : "uncheckedState");
  const code = Number.parseInt((symbolState && attr(symbolState, NS.w14, "val")) || (checked ? "2612" : "2610"), 16);
  const symbol = String.fromCodePoint(Number.isFinite(code) ? code : checked ? 0x2612 : 0x2610);
  const content = contentOf(control);
  const text = descendants(content, NS.w, "t")[0];
  if (text) {
    removeChildren(text);
    text.appendChild(control.part.writer.text(symbol));
  } else {
    const font = symbolState ? attr(symbolState, NS.w14, "font") : null;
    const rPr = font
      ? control.part.writer.el("w", "rPr", {}, [control.part.writer.el("w", "rFonts", { ascii: font, hAnsi: font, eastAsia: font })])
      : undefined;
    content.appendChild(textRun(control.part.writer, symbol, rPr));
  }
  clearPlaceholderState(control);
}

/** TableOptions tune a table fill. */
export interface TableOptions {
  /** Clone the last row's formatting (row, cell, paragraph and run properties) for new rows. */
  copyRowStyle: boolean;
}

/** tableOf is the element a table control's rows go into: the w:tbl inside it, or the control itself when it holds rows. */
function tableOf(control: Control): Element {
  const content = contentOf(control);
  return firstChild(content, NS.w, "tr") ? content : descendants(content, NS.w, "tbl")[0]!;
}

// Characters of XML a new cell takes besides its text (cell, paragraph, run and their properties).
const CELL_XML = 160;

/**
 * reserveTable takes a table field's rows from the request's budget before any row is made: each
 * row counts as one copy, of the last row's XML (copyRowStyle) or a plain row, plus its text written
 * at worst as entities (PAYLOAD_TOO_LARGE past a limit).
 */
export function reserveTable(control: Control, rows: readonly string[][], options: TableOptions, fieldName: string, budget: FillBudget): void {
  if (rows.length === 0) return;
  const template = childElements(tableOf(control), NS.w, "tr").at(-1);
  const base = options.copyRowStyle && template ? serializeNode(template).length : 0;
  let text = 0;
  for (const row of rows) for (const cell of row) text += cell.length * 6 + CELL_XML;
  budget.take(fieldName, rows.length, base + Math.ceil(text / rows.length));
}

/** fillTable appends rows of cell strings to the table inside a block control, with a pause whenever the turn on the event loop has run out. */
export async function fillTable(control: Control, rows: string[][], options: TableOptions, fieldName: string, slice: TimeSlice): Promise<void> {
  const writer = control.part.writer;
  const table = tableOf(control);
  const existing = childElements(table, NS.w, "tr");
  const template = existing.at(-1);
  const grid = table === contentOf(control) ? undefined : firstChild(table, NS.w, "tblGrid");
  const widths = grid ? childElements(grid, NS.w, "gridCol").map((column) => attr(column, NS.w, "w") ?? "") : [];
  const columns = template ? childElements(template, NS.w, "tc").length : widths.length || Math.max(0, ...rows.map((row) => row.length));
  rows.forEach((row, r) => {
    if (row.length > columns) {
      throw new SignetError("FIELD_TYPE_MISMATCH", `Row ${r + 1} of ${fieldName} has ${row.length} cells but the table has ${columns} columns.`, {
        details: [{ field: `${fieldName}.value.${r}`, issue: `${row.length} cells for ${columns} columns` }],
      });
    }
  });
  const after = template?.nextSibling ?? null;
  for (const row of rows) {
    if (slice.due()) await slice.pause();
    let tr: Element;
    if (options.copyRowStyle && template) {
      tr = cloneInto(writer.doc, template);
      for (const [i, cell] of childElements(tr, NS.w, "tc").entries()) fillCell(writer, cell, row[i] ?? "");
    } else {
      tr = writer.el("w", "tr");
      for (let i = 0; i < columns; i++) {
        const cellProperties = widths[i] ? [writer.el("w", "tcPr", {}, [writer.el("w", "tcW", { w: widths[i]!, type: "dxa" })])] : [];
        const paragraph = writer.el("w", "p");
        if (row[i]) paragraph.appendChild(textRun(writer, row[i]!, undefined));
        tr.appendChild(writer.el("w", "tc", {}, [...cellProperties, paragraph]));
      }
    }
    table.insertBefore(tr, after);
  }
  clearPlaceholderState(control);
}

function fillCell(writer: XmlWriter, cell: Element, value: string): void {
  const paragraph = firstChild(cell, NS.w, "p") ?? writer.el("w", "p");
  const run = descendants(paragraph, NS.w, "r")[0];
  const rPr = cleanRunProperties(run ? firstChild(run, NS.w, "rPr") : undefined);
  for (const child of childElements(cell)) {
    if (child !== paragraph && !(child.namespaceURI === NS.w && child.localName === "tcPr")) cell.removeChild(child);
  }
  if (!paragraph.parentNode) cell.appendChild(paragraph);
  for (const child of childElements(paragraph)) {
    if (!(child.namespaceURI === NS.w && child.localName === "pPr")) paragraph.removeChild(child);
  }
  if (value !== "") paragraph.appendChild(textRun(writer, value, rPr));
}

/** RepeatItem is one item of a repeat field: an inner control's id or tag, and its text. */
export type RepeatItem = Readonly<Record<string, string>>;

function isRepeatItem(element: Element): boolean {
  const properties = firstChild(element, NS.w, "sdtPr");
  return !!properties && !!firstChild(properties, NS.w15, "repeatingSectionItem");
}

/** innerMatch finds the controls of one item an id names: SuperDoc field id, then w:id, then Word tag (as for fields). */
function innerMatch(controls: readonly Control[], id: string): Control[] {
  for (const rule of [(c: Control) => c.fieldIds.includes(id), (c: Control) => c.sdtId === id, (c: Control) => c.tag === id]) {
    const found = controls.filter(rule);
    if (found.length > 0) return found;
  }
  return [];
}

/** repeatModel is the item a repeating section's copies are made of: its first; FIELD_TYPE_MISMATCH when it has none. */
function repeatModel(control: Control, fieldName: string): Element {
  const content = firstChild(control.element, NS.w, "sdtContent");
  const model = content ? childElements(content, NS.w, "sdt").find(isRepeatItem) : undefined;
  if (!model) {
    throw new SignetError("FIELD_TYPE_MISMATCH", `${fieldName} targets a repeating section with no item to repeat; add one item to it in Word.`, {
      details: [{ field: fieldName, issue: "the repeating section has no w15:repeatingSectionItem" }],
    });
  }
  return model;
}

/** reserveRepeat takes a repeat field's copies from the request's budget before any copy is made (PAYLOAD_TOO_LARGE past it). */
export function reserveRepeat(control: Control, items: readonly RepeatItem[], fieldName: string, budget: FillBudget): void {
  budget.take(fieldName, items.length, serializeNode(repeatModel(control, fieldName)).length);
}

/**
 * fillRepeat fills a Word repeating section (w15:repeatingSection): one copy of its first item
 * (w15:repeatingSectionItem, with its paragraphs or table rows and their formatting) per element of
 * `items`, each inner control named in the element filled with its text. The copies lose their w:id
 * values (ids must stay unique in a document; Word gives new ones). An id that matches no inner
 * control is FIELD_NOT_FOUND, an inner control that takes no text FIELD_TYPE_MISMATCH, each listed.
 * The copies are taken from the request's budget first (reserveRepeat, for every field before any
 * is filled), and made with a pause whenever the turn on the event loop has run out.
 */
export async function fillRepeat(control: Control, items: readonly RepeatItem[], fieldName: string, slice: TimeSlice): Promise<void> {
  const content = contentOf(control);
  const originals = childElements(content, NS.w, "sdt").filter(isRepeatItem);
  const model = repeatModel(control, fieldName);
  const unmatched: ErrorDetail[] = [];
  const mismatched: ErrorDetail[] = [];
  const copies: Element[] = [];
  for (const [i, item] of items.entries()) {
    if (slice.due()) await slice.pause();
    copies.push(repeatCopy(control, model, item, `${fieldName}.value.${i}`, { unmatched, mismatched }));
  }
  if (unmatched.length > 0) {
    throw new SignetError("FIELD_NOT_FOUND", `${unmatched.length} id(s) in ${fieldName} match no control inside the repeating section; see details.`, {
      details: unmatched.slice(0, 50),
      next: "list-fields",
    });
  }
  if (mismatched.length > 0)
    throw new SignetError("FIELD_TYPE_MISMATCH", "Some repeat values do not fit their controls; see details.", { details: mismatched.slice(0, 50) });
  const anchor = originals.at(-1)!.nextSibling;
  for (const copy of copies) content.insertBefore(copy, anchor);
  for (const original of originals) content.removeChild(original);
  clearPlaceholderState(control);
}

/** repeatCopy makes one item of a repeating section: a copy of the model with its inner controls filled and no w:id. */
function repeatCopy(
  control: Control,
  model: Element,
  item: RepeatItem,
  at: string,
  problems: { unmatched: ErrorDetail[]; mismatched: ErrorDetail[] },
): Element {
  const copy = cloneInto(control.part.writer.doc, model);
  const inner = descendants(copy, NS.w, "sdt").map((element) => describeControl(element, control.part));
  for (const [id, value] of Object.entries(item)) {
    const targets = innerMatch(inner, id);
    if (targets.length === 0) problems.unmatched.push({ field: `${at}.${id}`, issue: "matches no control inside the repeating section's item" });
    for (const target of targets) {
      if (target.kind === "text" || target.kind === "block") fillText(target, value, { keepTextNodeStyles: true });
      else problems.mismatched.push({ field: `${at}.${id}`, issue: `text cannot go into a ${target.kind} control inside the item` });
    }
  }
  for (const element of [copy, ...descendants(copy, NS.w, "sdt")]) {
    const properties = firstChild(element, NS.w, "sdtPr");
    const id = properties ? firstChild(properties, NS.w, "id") : undefined;
    if (id) properties!.removeChild(id);
  }
  return copy;
}
