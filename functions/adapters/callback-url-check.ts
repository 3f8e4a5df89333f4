import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { classifyAddress } from "#domain/shared/address-policy.ts";
import { SignetError } from "#domain/shared/errors.ts";

const refusal = (field: string) => (issue: string) =>
  new SignetError("VALIDATION_ERROR", `callbackUrl must be an https:// URL of a public host: ${issue}.`, { details: [{ field, issue }] });

/**
 * createCallbackUrlCheck checks a job's callbackUrl when the job is submitted, by the safe
 * fetcher's address policy (classifyAddress): HTTPS, no user name or password, and every address
 * the host resolves to public. The delivery checks again at connect time (DNS can change).
 */
export function createCallbackUrlCheck(
  options: {
    resolve?: (host: string) => Promise<string[]>;
    /** Addresses accepted although not public: only a test's own receiver, handed in through createContainer's overrides. */
    allowAddresses?: string[];
  } = {},
): (url: string, field?: string) => Promise<void> {
  const allowed = new Set(options.allowAddresses ?? []);
  const resolve = options.resolve ?? (async (host: string) => (await lookup(host, { all: true })).map((entry) => entry.address));
  return async (text, field = "body.callbackUrl") => {
    const refuse = refusal(field);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw refuse("not a URL");
    }
    if (url.protocol !== "https:") throw refuse(`${url.protocol} is not https:`);
    if (url.username || url.password) throw refuse("a user name or password in the URL");
    const host = url.hostname.replace(/^\[|\]$/g, "");
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : await resolve(host);
    } catch {
      throw refuse(`${host} does not resolve`);
    }
    for (const address of addresses) {
      if (allowed.has(address)) continue;
      const verdict = classifyAddress(address);
      if (!verdict.allowed) throw refuse(verdict.reason);
    }
  };
}
