import type { MailMessage } from "#domain/mailer.ts";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

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
    "<!doctype html><html><body style=\"font-family:sans-serif\">",
    "<p>Your Signet verification code is:</p>",
    `<p style="font-size:28px;font-weight:bold;letter-spacing:4px">${escapeHtml(code)}</p>`,
    `<p>It expires in ${minutes} minutes (at ${escapeHtml(until)}) and can be used once.</p>`,
    "<p>If you did not ask for an API key, ignore this e-mail: nothing happens without the code.</p>",
    "</body></html>",
  ].join("");
  return { to, subject: "Your Signet verification code", text, html };
}

/** keyNoticeMail tells an address that a key was issued, naming it by hint only (never the key). */
export function keyNoticeMail(to: string, hint: string, createdAt: string): MailMessage {
  const text = [
    `A new Signet API key was created for ${to} at ${createdAt}: ${hint}`,
    "",
    "If this was not you, someone can read this mailbox: ask the operator of this Signet installation to revoke the key.",
  ].join("\n");
  const html = [
    "<!doctype html><html><body style=\"font-family:sans-serif\">",
    `<p>A new Signet API key was created for ${escapeHtml(to)} at ${escapeHtml(createdAt)}: <code>${escapeHtml(hint)}</code></p>`,
    "<p>If this was not you, someone can read this mailbox: ask the operator of this Signet installation to revoke the key.</p>",
    "</body></html>",
  ].join("");
  return { to, subject: "A new Signet API key was created", text, html };
}
