import type { MailMessage } from "#domain/keys/mailer.ts";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** codeMail is the e-mail carrying a verification code. */
export function codeMail(to: string, code: string, expiresAt: Date): MailMessage {
  const minutes = 15;
  const until = expiresAt.toISOString().replace("T", " ").slice(0, 16) + " UTC";
  const text = [
    `Your Signet verification code is: ${code}`,
    "",
    `It expires in ${minutes} minutes (at ${until}) and can be used once.`,
    "",
    "If you did not ask for an API key, ignore this e-mail: nothing happens without the code.",
  ].join("\n");
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    "<p>Your Signet verification code is:</p>",
    `<p style="font-size:28px;font-weight:bold;letter-spacing:4px">${escapeHtml(code)}</p>`,
    `<p>It expires in ${minutes} minutes (at ${escapeHtml(until)}) and can be used once.</p>`,
    "<p>If you did not ask for an API key, ignore this e-mail: nothing happens without the code.</p>",
    "</body></html>",
  ].join("");
  return { to, subject: "Your Signet verification code", text, html };
}

/** RevokeHowTo is what the key notice says about revoking the key. */
export interface RevokeHowTo {
  keyId: string;
  /** The one-time revocation link (no key needed). */
  linkUrl: string;
  /** When the link stops working (ISO-8601). */
  linkExpiresAt: string;
  /** The API's base URL, for the DELETE /v1/keys/{id} endpoint. */
  baseUrl: string;
}

/** keyNoticeMail tells an address that a key was issued, naming it by hint only (never the key), and how to revoke it. */
export function keyNoticeMail(to: string, hint: string, createdAt: string, revoke: RevokeHowTo): MailMessage {
  const until = revoke.linkExpiresAt.replace("T", " ").slice(0, 16) + " UTC";
  const endpoint = `DELETE ${revoke.baseUrl}/v1/keys/${revoke.keyId}`;
  const text = [
    `A new Signet API key was created for ${to} at ${createdAt}: ${hint} (id ${revoke.keyId})`,
    "",
    "If this was not you, someone can read this mailbox. Revoke the key:",
    `- open this link (it shows the key, then asks you to confirm; it works once, until ${until}):`,
    `  ${revoke.linkUrl}`,
    `- or call ${endpoint} with any key of this address (GET ${revoke.baseUrl}/v1/keys lists them).`,
  ].join("\n");
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    `<p>A new Signet API key was created for ${escapeHtml(to)} at ${escapeHtml(createdAt)}: <code>${escapeHtml(hint)}</code> (id <code>${escapeHtml(revoke.keyId)}</code>)</p>`,
    "<p>If this was not you, someone can read this mailbox. Revoke the key:</p><ul>",
    `<li><a href="${escapeHtml(revoke.linkUrl)}">open the revocation link</a> (it shows the key, then asks you to confirm; it works once, until ${escapeHtml(until)})</li>`,
    `<li>or call <code>${escapeHtml(endpoint)}</code> with any key of this address (<code>GET /v1/keys</code> lists them).</li>`,
    "</ul></body></html>",
  ].join("");
  return { to, subject: "A new Signet API key was created", text, html };
}
