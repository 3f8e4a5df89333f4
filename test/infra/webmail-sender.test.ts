import { describe, expect, it } from "vitest";
import { webmailSenderWarning } from "../../infra/webmail-sender.ts";

// A sender on a webmail domain fails DMARC when SES sends for it (infra/webmail-sender.ts): synth
// warns for those, and only those. One row per address: whether it warns.
const rows: Array<[string, boolean]> = [
  ["me@gmail.com", true],
  ["Me@GoogleMail.com", true],
  ["me@yahoo.com", true],
  ["me@yahoo.co.uk", true],
  ["me@outlook.com", true],
  ["me@hotmail.fr", true],
  ["me@live.com", true],
  ["me@icloud.com", true],
  ["me@aol.com", true],
  ["me@proton.me", true],
  ["me@protonmail.com", true],
  ["me@gmx.de", true],
  ["noreply@example.com", false],
  ["noreply@mail.example.com", false],
  ["noreply@gmail.example.com", false],
  ["noreply@notgmail.com", false],
  ["noreply@outlook-consulting.de", false],
];

describe("webmailSenderWarning", () => {
  it.each(rows)("%s warns: %s", (address, warns) => {
    const warning = webmailSenderWarning(address);
    expect(warning !== undefined).toBe(warns);
    if (warns) expect(warning).toMatch(/webmail domain with DMARC.*Send from a domain you control/s);
  });
});
