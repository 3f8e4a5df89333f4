/**
 * Long scans over one document (a 100 MB XML part, a 20 MB RTF) hand the event loop back every few
 * milliseconds, so a health check or another request is answered while they run. The work stays
 * where it is (no thread, no copy of the document); only its turns are cut.
 */

/** SLICE_MS is how long a scan keeps the event loop before it lets waiting callbacks run. */
const SLICE_MS = 10;

/** TimeSlice measures one scan's turn on the event loop; `pause` ends the turn once it has run SLICE_MS. */
export class TimeSlice {
  #since = performance.now();

  /** due says whether this turn has run out (cheap; call it every few hundred steps). */
  due(): boolean {
    return performance.now() - this.#since >= SLICE_MS;
  }

  /** pause lets pending I/O callbacks (another request, a health check) run, then starts a new turn. */
  async pause(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.#since = performance.now();
  }
}

// How many matches run between two looks at the clock.
const CHECK_EVERY = 256;

/**
 * replaceInSlices is String#replace with a global regular expression, pausing between matches when
 * the turn has run out. The replacer gets the match (groups, indices); returning the match itself
 * keeps it. The expression is copied, so concurrent scans do not share its lastIndex.
 */
export async function replaceInSlices(text: string, pattern: RegExp, replace: (match: RegExpExecArray) => string, slice = new TimeSlice()): Promise<string> {
  const regex = new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`);
  const parts: string[] = [];
  let at = 0;
  let count = 0;
  for (let match = regex.exec(text); match; match = regex.exec(text)) {
    if (match[0].length === 0) regex.lastIndex++;
    const replaced = replace(match);
    if (replaced !== match[0]) {
      parts.push(text.slice(at, match.index), replaced);
      at = match.index + match[0].length;
    }
    if (++count % CHECK_EVERY === 0 && slice.due()) await slice.pause();
  }
  if (parts.length === 0) return text;
  parts.push(text.slice(at));
  return parts.join("");
}

// Bytes looked at (searched, decoded, encoded) between two looks at the clock.
const WINDOW = 4 * 1024 * 1024;

/** wordsIn tells which of `words` (ASCII) occur in `data`, searching it window by window with a pause when the turn has run out. */
export async function wordsIn(data: Buffer, words: readonly string[], slice: TimeSlice): Promise<Set<string>> {
  const found = new Set<string>();
  const overlap = Math.max(0, ...words.map((word) => word.length - 1));
  for (let at = 0; at < data.length && found.size < words.length; at += WINDOW) {
    if (at > 0 && slice.due()) await slice.pause();
    const window = data.subarray(at, at + WINDOW + overlap);
    for (const word of words) if (!found.has(word) && window.includes(word, 0, "latin1")) found.add(word);
  }
  return found;
}

/** decodeUtf8 decodes UTF-8 window by window (cut before a character's first byte), with a pause when the turn has run out. */
export async function decodeUtf8(data: Buffer, slice: TimeSlice): Promise<string> {
  let text = "";
  for (let at = 0; at < data.length; ) {
    if (at > 0 && slice.due()) await slice.pause();
    let end = Math.min(data.length, at + WINDOW);
    // 0b10xxxxxx continues a character: cut before the byte that starts it.
    while (end < data.length && end > at && (data[end]! & 0xc0) === 0x80) end--;
    text += data.toString("utf8", at, end);
    at = end;
  }
  return text;
}

/** encodeUtf8 encodes a string as UTF-8 window by window (never between the halves of a surrogate pair), with a pause when the turn has run out. */
export async function encodeUtf8(text: string, slice: TimeSlice): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let at = 0; at < text.length; ) {
    if (at > 0 && slice.due()) await slice.pause();
    let end = Math.min(text.length, at + WINDOW);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && code >= 0xd800 && code <= 0xdbff) end--;
    parts.push(Buffer.from(text.slice(at, end), "utf8"));
    at = end;
  }
  return Buffer.concat(parts);
}
