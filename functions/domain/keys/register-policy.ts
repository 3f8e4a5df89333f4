import { mailboxOf, normalizeEmail } from "#domain/keys/email-address.ts";

/**
 * RegisterPolicy says which addresses may receive codes: `open` for anyone, or a list of allowed
 * addresses and domains (a personal deployment: "me@example.com,example.org").
 */
export type RegisterPolicy = { open: true } | { open: false; addresses: ReadonlySet<string>; domains: ReadonlySet<string> };

/** OPEN_REGISTRATION lets every well-formed address register (the default). */
const OPEN_REGISTRATION: RegisterPolicy = { open: true };

/**
 * parseRegisterPolicy reads a comma-separated allow-list: full addresses (me@example.com; a +tag
 * of an allowed address is allowed too, it reaches the same mailbox) and domains (example.org or
 * @example.org: exactly that domain, not its subdomains). Empty means open. Throws on an entry that
 * is neither, naming it.
 */
export function parseRegisterPolicy(text: string | undefined): RegisterPolicy {
  const entries = (text ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) return OPEN_REGISTRATION;
  const addresses = new Set<string>();
  const domains = new Set<string>();
  for (const entry of entries) {
    const bare = entry.startsWith("@") ? entry.slice(1) : entry;
    const asAddress = normalizeEmail(bare.includes("@") ? bare : `x@${bare}`);
    if (!asAddress.ok) throw new Error(`"${entry}" is neither an e-mail address nor a domain (${asAddress.issue})`);
    if (bare.includes("@")) addresses.add(mailboxOf(asAddress.address.lookup));
    else domains.add(asAddress.address.lookup.slice(2));
  }
  return { open: false, addresses, domains };
}

/** registrationAllowed tells whether an address (lookup form) may receive a code under a policy. */
export function registrationAllowed(policy: RegisterPolicy, lookup: string): boolean {
  if (policy.open) return true;
  return policy.addresses.has(mailboxOf(lookup)) || policy.domains.has(lookup.slice(lookup.lastIndexOf("@") + 1));
}
