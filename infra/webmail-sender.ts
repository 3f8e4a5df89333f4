/**
 * Sender addresses SES cannot send from in a way receivers accept: a webmail provider's domain
 * publishes DMARC, and mail SES sends "From: you@gmail.com" is signed by amazonses.com and leaves
 * from Amazon's MAIL FROM domain, so neither DKIM nor SPF aligns with gmail.com. Receivers reject
 * it (p=reject: Yahoo, AOL) or file it as spam, and Gmail and Yahoo refuse unaligned bulk mail.
 */

/** webmailDomains match the domains of the big mailbox providers, each one where a person gets a free address. */
const webmailDomains: readonly RegExp[] = [
  /^(gmail|googlemail)\.com$/,
  /^(yahoo|ymail|rocketmail)\.[a-z.]+$/,
  /^(outlook|hotmail|live|msn|windowslive)\.[a-z.]+$/,
  /^(icloud|me|mac)\.com$/,
  /^(aol|aim)\.com$/,
  /^(proton\.me|protonmail\.(com|ch)|pm\.me)$/,
  /^(gmx\.[a-z.]+|web\.de|mail\.com|yandex\.[a-z.]+|mail\.ru|zoho\.com|fastmail\.com)$/,
];

/** webmailSenderWarning is the synth warning for a sender on a webmail domain, or undefined for any other. */
export function webmailSenderWarning(senderEmail: string): string | undefined {
  const domain = senderEmail.slice(senderEmail.lastIndexOf("@") + 1).toLowerCase();
  if (!webmailDomains.some((pattern) => pattern.test(domain))) return undefined;
  return (
    `senderEmail ${senderEmail} is on ${domain}, a webmail domain with DMARC: SES can verify the address, but the mail it sends from it ` +
    `is not DKIM- or SPF-aligned with ${domain}, so receivers reject it or file it as spam and registration codes do not arrive. ` +
    "Send from a domain you control, verified in SES with DKIM (docs/aws.md, SES)."
  );
}
