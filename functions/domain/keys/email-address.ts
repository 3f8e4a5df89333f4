import { domainToASCII } from "node:url";

/** EmailAddress is a normalised address: `display` to send to, `lookup` to key records by. */
export interface EmailAddress {
  /** Trimmed, domain in lower case (and punycode), local part as given. */
  display: string;
  /** The whole address in lower case, so case variants share codes and limits. */
  lookup: string;
}

/** EmailCheck is an address or the reason it was refused (written for the caller). */
export type EmailCheck = { ok: true; address: EmailAddress } | { ok: false; issue: string };

// RFC 5322 dot-atom characters; no quoted local parts, no comments, no whitespace.
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * normalizeEmail trims an address, lower-cases its domain and refuses malformed ones, including
 * anything with control characters (CR/LF header injection), spaces, commas or angle brackets.
 */
export function normalizeEmail(raw: string): EmailCheck {
  const text = raw.trim();
  // Checked on the raw text: a CR or LF anywhere is an injection attempt, not a typo to trim.
  if (/[\u0000-\u001f\u007f]/.test(raw)) return { ok: false, issue: "must not contain control characters (line breaks, tabs)" };
  if (text.length === 0) return { ok: false, issue: "is empty" };
  if (text.length > 254) return { ok: false, issue: "is longer than 254 characters" };
  // "me+1@example.com" pasted unencoded into a URL query arrives as "me 1@example.com".
  if (/^[\w.!#$%&'*+/=?^`{|}~-]+( [\w.!#$%&'*+/=?^`{|}~-]+)+@[^\s@]+$/.test(text)) {
    return { ok: false, issue: "has a space before the @: a + in a URL query means a space, so write it as %2B (me%2B1@example.com)" };
  }
  if (/[\s,;<>()[\]\\"]/.test(text)) return { ok: false, issue: "must be a bare address (no spaces, commas, quotes or angle brackets)" };
  const at = text.lastIndexOf("@");
  if (at <= 0 || at !== text.indexOf("@")) return { ok: false, issue: "must contain exactly one @ with a name before it" };
  const local = text.slice(0, at);
  const domain = domainToASCII(text.slice(at + 1).toLowerCase());
  if (local.length > 64 || !LOCAL_PART.test(local)) return { ok: false, issue: "has an invalid part before the @" };
  const labels = domain.split(".");
  if (domain === "" || labels.length < 2 || !labels.every((label) => LABEL.test(label)) || /^\d+$/.test(labels.at(-1)!)) {
    return { ok: false, issue: "has an invalid domain after the @" };
  }
  const display = `${local}@${domain}`;
  return { ok: true, address: { display, lookup: display.toLowerCase() } };
}

/**
 * mailboxOf is the rate-limit key of an address in lookup form: the local part without a
 * "+tag" (me+1@example.com and me+2@example.com reach one mailbox, so they share the per-address
 * limits). Codes stay per exact address; only the limits use this.
 */
export function mailboxOf(lookup: string): string {
  const at = lookup.lastIndexOf("@");
  const plus = lookup.indexOf("+");
  // A local part that starts with "+" has no base to share: it counts as given.
  if (plus <= 0 || plus > at) return lookup;
  return `${lookup.slice(0, plus)}${lookup.slice(at)}`;
}
