import { SignetError } from "#domain/errors.ts";

/**
 * jsonDepthExceeds tells whether the JSON text nests objects/arrays deeper than maxDepth. It scans
 * the text before parsing so a hostile body costs one pass and no allocations.
 */
export function jsonDepthExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
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
