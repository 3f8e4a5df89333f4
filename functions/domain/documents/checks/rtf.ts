import { isSafeField } from "#domain/documents/checks/fields.ts";
import { TimeSlice } from "#domain/shared/time-slice.ts";

/** RtfScan is an RTF document with its linking fields neutralised, and the start of each picture's data. */
export interface RtfScan {
  bytes: Uint8Array;
  /** One entry per neutralised field or shape property. */
  removed: string[];
  /** The first bytes of each \pict's data (hex or \bin), for the image size check. */
  pictures: Uint8Array[];
}

const PICTURE_HEAD = 1024 * 1024;

interface Group {
  start: number;
  /** The destination this group is (fldinst, pict, sv), from its first control word. */
  kind?: string;
}

/**
 * plainText decodes the text of an RTF fragment the way a reader sees it: control words dropped,
 * \'hh and \uN decoded (with their fallback skipped), escaped braces and backslashes kept, groups
 * flattened. Used to read a field instruction however it is split or escaped.
 */
export function plainText(rtf: string): string {
  let out = "";
  let skip = 0;
  for (let i = 0; i < rtf.length; i++) {
    const c = rtf[i]!;
    if (c === "{" || c === "}" || c === "\r" || c === "\n") continue;
    if (c !== "\\") {
      if (skip > 0) skip--;
      else out += c;
      continue;
    }
    const next = rtf[i + 1] ?? "";
    if (next === "'") {
      if (skip > 0) skip--;
      else out += String.fromCharCode(Number.parseInt(rtf.slice(i + 2, i + 4), 16) || 0x3f);
      i += 3;
      continue;
    }
    const word = /^\\([a-z]+)(-?\d+)? ?/i.exec(rtf.slice(i, i + 40));
    if (!word) {
      // A control symbol: \\ \{ \} are text, the rest (\~ \- \* ...) are not.
      if ("\\{}".includes(next)) out += next;
      else if (next === "~") out += " ";
      i += 1;
      continue;
    }
    if (word[1] === "u" && word[2] !== undefined) {
      const code = Number(word[2]);
      out += String.fromCharCode(code < 0 ? code + 65536 : code);
      skip = 1;
    }
    i += word[0].length - 1;
  }
  return out;
}

/**
 * neutraliseRtf walks an RTF document once (groups, escapes, \bin data) and replaces every field
 * instruction that can load content (INCLUDEPICTURE, INCLUDETEXT, LINK, ...; see isSafeField)
 * with an empty one, so the field's stored result is all that is shown, and empties shape
 * properties holding a URL or path (a linked picture's pibName). It also collects the first bytes
 * of every picture for the size check. The document is rewritten only when something was removed.
 * The walk pauses every few milliseconds (TimeSlice), so a 20 MB RTF does not hold the event loop.
 */
export async function neutraliseRtf(bytes: Uint8Array): Promise<RtfScan> {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  const stack: Group[] = [];
  const replacements: Array<{ start: number; end: number; with: string }> = [];
  const removed: string[] = [];
  const pictures: Uint8Array[] = [];
  const slice = new TimeSlice();
  for (let i = 0; i < text.length; i++) {
    if ((i & 0x3fff) === 0 && slice.due()) await slice.pause();
    const c = text.charCodeAt(i);
    if (c === 0x7b) {
      stack.push({ start: i });
    } else if (c === 0x7d) {
      const group = stack.pop();
      if (!group) continue;
      const body = text.slice(group.start, i + 1);
      if (group.kind === "fldinst") {
        const instruction = plainText(body);
        if (!isSafeField(instruction)) {
          replacements.push({ start: group.start, end: i + 1, with: "{\\*\\fldinst }" });
          removed.push(`field ${instruction.trim()}`);
        }
      } else if (group.kind === "sv") {
        const value = plainText(body).trim();
        if (/^[a-z][a-z0-9+.-]*:|^\\\\|^\/\//i.test(value)) {
          replacements.push({ start: group.start, end: i + 1, with: "{\\sv }" });
          removed.push(`shape property ${value}`);
        }
      } else if (group.kind === "pict") {
        pictures.push(pictureHead(body));
      }
    } else if (c === 0x5c) {
      const word = /^\\([a-z]+)(-?\d+)? ?/i.exec(text.slice(i, i + 40));
      if (!word) {
        i += text[i + 1] === "'" ? 3 : 1;
        continue;
      }
      const name = word[1]!.toLowerCase();
      const group = stack.at(-1);
      // The destination is the group's first control word (after an optional \*), decided once.
      if (group && group.kind === undefined) {
        const first =
          text
            .slice(group.start + 1, i)
            .replace(/\\\*/g, "")
            .trim() === "";
        group.kind = first && (name === "fldinst" || name === "pict" || name === "sv") ? name : "";
      }
      i += word[0].length - 1;
      if (name === "bin" && word[2] !== undefined) i += Math.max(0, Number(word[2]));
    }
  }
  if (replacements.length === 0) return { bytes, removed, pictures };
  let out = "";
  let at = 0;
  // Outermost first: a replaced group swallows any replacement inside it.
  for (const replacement of replacements.sort((a, b) => a.start - b.start || b.end - a.end)) {
    if (replacement.start < at) continue;
    out += text.slice(at, replacement.start) + replacement.with;
    at = replacement.end;
  }
  out += text.slice(at);
  return { bytes: Buffer.from(out, "latin1"), removed, pictures };
}

/** pictureHead decodes the start of a \pict group's data: hex digits after its control words, or \bin bytes. */
function pictureHead(group: string): Uint8Array {
  // Nested groups (\*\blipuid, \picprop) hold no picture data.
  let data = "";
  let depth = 0;
  for (let i = 1; i < group.length - 1 && data.length < PICTURE_HEAD * 2; i++) {
    const c = group[i]!;
    if (c === "{") depth++;
    else if (c === "}") depth--;
    else if (depth > 0) continue;
    else if (c === "\\") {
      const word = /^\\([a-z]+)(-?\d+)? ?/i.exec(group.slice(i, i + 40));
      if (!word) {
        i++;
        continue;
      }
      if (word[1]!.toLowerCase() === "bin" && word[2] !== undefined) {
        const start = i + word[0].length;
        return Buffer.from(group.slice(start, start + Math.min(Number(word[2]), PICTURE_HEAD)), "latin1");
      }
      i += word[0].length - 1;
    } else if (/[0-9a-f]/i.test(c)) data += c;
  }
  return Buffer.from(data.length % 2 === 0 ? data : data.slice(0, -1), "hex");
}

// A field start (0x13) then the field type, in 8-bit or UTF-16LE text; links any .doc reader follows.
const DOC_LINK_FIELDS = ["INCLUDEPICTURE", "INCLUDETEXT", "INCLUDE", "IMPORT", "LINK", "DDEAUTO", "DDE", "DATABASE", "RD"];
const DOC_FIELD_8BIT = new RegExp(`\\x13\\s*(${DOC_LINK_FIELDS.join("|")})\\b`, "i");

/**
 * docLinkField finds a field in a Word 97-2003 file that loads content from outside it
 * (INCLUDEPICTURE, INCLUDETEXT, LINK, DDE, ...), by its field-start character in the text (8-bit
 * or UTF-16); undefined when there is none. A .doc cannot be rewritten here, so the caller refuses it.
 */
export function docLinkField(bytes: Uint8Array): string | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const eight = DOC_FIELD_8BIT.exec(buffer.toString("latin1"));
  if (eight) return eight[1]!.toUpperCase();
  for (const offset of [0, 1]) {
    const sixteen = DOC_FIELD_8BIT.exec(buffer.subarray(offset, offset + ((buffer.length - offset) & ~1)).toString("utf16le"));
    if (sixteen) return sixteen[1]!.toUpperCase();
  }
  return undefined;
}
