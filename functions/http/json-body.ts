import { SignetError } from "#domain/shared/errors.ts";

/**
 * jsonDepthExceeds tells whether the JSON text nests objects/arrays deeper than maxDepth. It scans
 * the text before parsing so a hostile body costs one pass and no allocations; strings are skipped
 * with indexOf (native), so a body that is mostly one long base64 string costs next to nothing.
 */
export function jsonDepthExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Find the closing quote: one not preceded by an odd number of backslashes.
      for (;;) {
        const close = text.indexOf('"', i + 1);
        if (close === -1) return false; // unterminated: JSON.parse reports it
        let backslashes = 0;
        while (text.charCodeAt(close - 1 - backslashes) === 0x5c) backslashes++;
        i = close;
        if (backslashes % 2 === 0) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** parseJsonBody turns a request body into a value, with the errors SPEC 5 asks for. */
export function parseJsonBody(text: string, maxDepth: number): unknown {
  if (text.trim() === "") {
    throw new SignetError("VALIDATION_ERROR", "The request body is empty; send a JSON object.");
  }
  if (jsonDepthExceeds(text, maxDepth)) {
    throw new SignetError("VALIDATION_ERROR", `The JSON body nests deeper than ${maxDepth} levels; flatten it.`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const where = error instanceof SyntaxError ? `: ${error.message}` : "";
    throw new SignetError("VALIDATION_ERROR", `The request body is not valid JSON${where}.`);
  }
}

/**
 * isJsonContentType accepts application/json only, with any parameters (SPEC 1: anything else,
 * application/vnd.api+json included, is 415).
 */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  return contentType.split(";")[0]!.trim().toLowerCase() === "application/json";
}
