import { checkApiKeyFormat, generateApiKey, hashApiKey, keyHint, newKeyId, newRevokeToken, parseBearer } from "#domain/keys/api-key.ts";
import { mailboxOf, normalizeEmail, type EmailAddress } from "#domain/keys/email-address.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { codeMail, keyNoticeMail } from "#domain/keys/key-mail.ts";
import type { CodeClaim, KeyStore, RateSlotStore } from "#domain/keys/key-store.ts";
import type { Mailer } from "#domain/keys/mailer.ts";
import { VERIFY_FAILURES_PER_SOURCE, describeWindow, ipBucketOf, planRules, planSlots, type RateLimit } from "#domain/keys/rate-limit.ts";
import { registrationAllowed, type RegisterPolicy } from "#domain/keys/register-policy.ts";
import { CODE_PATTERN, CODE_TTL_SECONDS, type CodeRecord, checkCode, decoyCodeRecord, generateCode, newCodeRecord } from "#domain/keys/verification-code.ts";

/**
 * RegisterLimits are the register rate limits: per address (docs/api.md, "API keys"), per address per day, per
 * source IP. "Per address" counts per mailbox (a +tag in the local part is ignored) and "per IP"
 * counts an IPv6 client per /64 network (see ipBucketOf, mailboxOf).
 */
export interface RegisterLimits {
  /** docs/api.md, "API keys": 3 codes per 15 minutes. */
  perAddress: RateLimit;
  /** Caps slow guessing: each code allows 5 tries, so this bounds tries per address per day. */
  perAddressDaily: RateLimit;
  perIp: RateLimit;
}

/** KeyServiceDeps is what the API-key use cases need from the outside world. */
export interface KeyServiceDeps {
  store: KeyStore;
  mailer: Mailer;
  /** The clock, epoch milliseconds (injected so tests can move time). */
  now: () => number;
  limits: RegisterLimits;
  /** Who may register; others get the same answer and no code (open when unset). */
  registerPolicy?: RegisterPolicy;
  /**
   * Where the code mail of an address outside registerPolicy goes: a mailbox that drops it (SES's
   * mailbox simulator), so both paths make the same mail call. Unset: no mail for such an address.
   */
  decoyRecipient?: string;
  /** Reports a failure the caller does not see (the key notice e-mail). Never given codes or keys. */
  warn?: (message: string, data: Record<string, unknown>) => void;
}

/** VerifyDeps is what verifying a code needs: wrong tries are counted on the code and per source network. */
export type VerifyDeps = Pick<KeyServiceDeps, "store" | "mailer" | "now" | "warn"> & {
  /** Codes that did not work, allowed per source network (IPv4 address, IPv6 /64); VERIFY_FAILURES_PER_SOURCE when unset. */
  failuresPerSource?: RateLimit;
};

/** RegisterAnswer is the body of a register response: identical for every well-formed address. */
export interface RegisterAnswer {
  message: string;
  expiresInSeconds: number;
}

/** IssuedKey is the body of a verify response: the only time the key is shown. */
export interface IssuedKey {
  key: string;
  email: string;
  createdAt: string;
  message: string;
}

/** AuthDecision is the authorizer's verdict on an Authorization header. */
export type AuthDecision = { allow: true; keyId: string; email: string } | { allow: false; message: string };

const REGISTER_MESSAGE = "If the address can receive mail, a code is on its way. It expires in 15 minutes.";
const ISSUED_MESSAGE = "store this key now: it cannot be shown again";
// lastUsedAt is written at most once per this interval per key.
const TOUCH_INTERVAL_MS = 60_000;
// Rounds of re-reading after losing a race on a conditional write.
const MAX_RACE_ROUNDS = 4;

function addressOf(raw: string): EmailAddress {
  const check = normalizeEmail(raw);
  if (!check.ok) {
    throw new SignetError("VALIDATION_ERROR", "The e-mail address is not valid; see details.", {
      details: [{ field: "query.email", issue: check.issue }],
    });
  }
  return check.address;
}

interface TakenSlot {
  bucket: string;
  slot: number;
  at: number;
}

/** SlotRule is one register rate limit: its bucket of slots and the words of its 429. */
interface SlotRule {
  bucket: string;
  rule: RateLimit;
  tooMany: string;
}

const tooManyError = (tooMany: string, retryAfterSeconds: number) =>
  new SignetError("RATE_LIMIT_ERROR", `${tooMany} Retry in ${retryAfterSeconds} seconds.`, { retryAfterSeconds });

/** takeSlot claims one slot of a rule, starting from slots already read; re-reads after losing races. */
async function takeSlot(store: RateSlotStore, { bucket, rule, tooMany }: SlotRule, now: number, firstRead: Map<number, number>): Promise<TakenSlot> {
  let used = firstRead;
  for (let round = 0; round < MAX_RACE_ROUNDS; round++) {
    if (round > 0) used = await store.readRateSlots(bucket);
    const plan = planSlots(used, rule, now);
    if (!plan.allowed) throw tooManyError(tooMany, plan.retryAfterSeconds);
    for (const slot of plan.freeSlots) {
      if (await store.claimRateSlot(bucket, slot, used.get(slot), now, rule.windowSeconds)) return { bucket, slot, at: now };
    }
  }
  // Every free slot went to a concurrent caller in every round: the limit is being hit right now.
  throw new SignetError("RATE_LIMIT_ERROR", `${tooMany} Retry in a few seconds.`, { retryAfterSeconds: 5 });
}

async function releaseAll(store: RateSlotStore, slots: TakenSlot[]): Promise<void> {
  await Promise.allSettled(slots.map((taken) => store.releaseRateSlot(taken.bucket, taken.slot, taken.at)));
}

/**
 * takeSlots takes one slot under every rule, or none. All buckets are read first, so a refusal
 * carries the longest wait of all refusing rules (a correct Retry-After: waiting for a shorter
 * rule alone would only earn another 429). A rule refused while claiming (a concurrent caller took
 * the last slot) releases the slots already taken.
 */
async function takeSlots(store: RateSlotStore, rules: SlotRule[], now: number): Promise<TakenSlot[]> {
  const reads = await Promise.all(rules.map((rule) => store.readRateSlots(rule.bucket)));
  const plan = planRules(
    rules.map((rule, i) => ({ used: reads[i]!, rule: rule.rule })),
    now,
  );
  if (!plan.allowed) throw tooManyError(rules[plan.rule]!.tooMany, plan.retryAfterSeconds);
  const taken: TakenSlot[] = [];
  try {
    for (const [i, rule] of rules.entries()) taken.push(await takeSlot(store, rule, now, reads[i]!));
  } catch (error) {
    await releaseAll(store, taken);
    throw error;
  }
  return taken;
}

const perAddressTooMany = ({ limit, windowSeconds }: RateLimit) =>
  `Too many codes were requested for this address (at most ${limit} per ${describeWindow(windowSeconds)}).`;

/**
 * requestCode sends a fresh 6-digit code to an address. It answers the same for every well-formed
 * address; it never reads whether the address holds keys. A code that could not be sent is
 * withdrawn (the code it replaced, if any, is put back) and does not count against the rate
 * limits (per source IP or IPv6 /64, per mailbox in 15 minutes, per mailbox in 24 hours).
 */
export async function requestCode(deps: KeyServiceDeps, input: { email: string; sourceIp: string }): Promise<RegisterAnswer> {
  const address = addressOf(input.email);
  const now = deps.now();
  const { perIp, perAddress, perAddressDaily } = deps.limits;
  const mailbox = mailboxOf(address.lookup);
  const taken = await takeSlots(
    deps.store,
    [
      { bucket: `ip#${ipBucketOf(input.sourceIp)}`, rule: perIp, tooMany: "Too many codes were requested from your network." },
      { bucket: `email#${mailbox}`, rule: perAddress, tooMany: perAddressTooMany(perAddress) },
      { bucket: `email-day#${mailbox}`, rule: perAddressDaily, tooMany: perAddressTooMany(perAddressDaily) },
    ],
    now,
  );
  // A personal deployment's allow-list: an address outside it takes the same steps as one on it
  // (the same rate slots, a code record of the same shape written the same way, a code mail of
  // the same size through the same mail call) and gets the same answer, but its record matches no
  // code and its mail goes to a mailbox that drops it. Neither the answer nor its timing tells
  // which addresses are on the list.
  const allowed = !deps.registerPolicy || registrationAllowed(deps.registerPolicy, address.lookup);
  const requester = ipBucketOf(input.sourceIp);
  const code = generateCode();
  const record = allowed ? newCodeRecord(address.lookup, code, now, requester) : decoyCodeRecord(address.lookup, now, requester);
  const recipient = allowed ? address.display : deps.decoyRecipient;
  let replaced: CodeRecord | undefined;
  try {
    replaced = await deps.store.putCode(record);
    if (recipient) await deps.mailer.send(codeMail(recipient, code, new Date(record.expiresAt)));
  } catch (error) {
    // No half-state: the unsent code is withdrawn, the code it replaced (still valid, perhaps
    // already in the user's inbox) is put back, and the attempt does not count. Both writes are
    // conditional on the unsent code still being there, so a concurrent register's code stays.
    await Promise.allSettled([deps.store.withdrawCode(address.lookup, record.codeId, replaced)]);
    await releaseAll(deps.store, taken);
    throw error;
  }
  return { message: REGISTER_MESSAGE, expiresInSeconds: CODE_TTL_SECONDS };
}

const requestNew = "Request a new code.";
const register = { next: "register" } as const;

/**
 * REFUSED_MESSAGE is the one answer to a code that does not work, whatever the reason: no code
 * pending, a wrong code, a dead one, one closed to the caller's network, or a used or expired
 * code the caller does not know. A stranger learns nothing about the address from it.
 */
const REFUSED_MESSAGE =
  "This code does not work for this address: it is wrong, expired, already used or replaced by a newer one, or was tried wrong too often. " +
  "Type the code of the latest e-mail from the network you asked for it from, or request a new one.";

const refused = () =>
  new SignetError("INVALID_CODE", REFUSED_MESSAGE, { ...register, details: [{ field: "query.code", issue: "not a working code for this address" }] });

const sourceTooMany = ({ limit, windowSeconds }: RateLimit) =>
  `Too many codes that did not work were tried from your network (at most ${limit} per ${describeWindow(windowSeconds)}).`;

/**
 * verifyCode exchanges a live code for a new API key. A code that does not work gets one answer
 * whatever the reason (see REFUSED_MESSAGE), so the answer is no oracle for whether an address
 * asked for a code. Wrong tries are counted on the code per side: 5 from the network that asked
 * for it kill it (docs/api.md, "API keys"), 5 from all other networks together close it to them while it keeps
 * working from the requester's, so a stranger cannot keep an address from getting a key. Every
 * code that does not work also counts against its source network (failuresPerSource), checked
 * before the code is even read. Marking the code used and storing the key are one transaction,
 * so a code mints exactly one key even when many calls race with the right code.
 */
export async function verifyCode(deps: VerifyDeps, input: { email: string; code: string; baseUrl: string; sourceIp: string }): Promise<IssuedKey> {
  const address = addressOf(input.email);
  if (!CODE_PATTERN.test(input.code)) {
    throw new SignetError("VALIDATION_ERROR", "The code is not valid; see details.", {
      details: [{ field: "query.code", issue: "must be the 6 digits from the e-mail" }],
    });
  }
  const source = ipBucketOf(input.sourceIp);
  const rule = deps.failuresPerSource ?? VERIFY_FAILURES_PER_SOURCE;
  const failures: SlotRule = { bucket: `verify-ip#${source}`, rule, tooMany: sourceTooMany(rule) };
  const counted = await deps.store.readRateSlots(failures.bucket);
  const plan = planSlots(counted, failures.rule, deps.now());
  if (!plan.allowed) throw tooManyError(failures.tooMany, plan.retryAfterSeconds);
  /** fail counts a code that did not work against the source network, then refuses. */
  const fail = async (error: SignetError): Promise<never> => {
    await takeSlot(deps.store, failures, deps.now(), counted);
    throw error;
  };

  for (let round = 0; round < MAX_RACE_ROUNDS; round++) {
    const now = deps.now();
    const record = await deps.store.getCode(address.lookup);
    const check = checkCode(record, input.code, now, source);
    switch (check.outcome) {
      case "refused":
        return fail(refused());
      // Only a caller who presents the right code learns these: it is no guess, and not counted.
      case "expired":
        throw new SignetError("CODE_EXPIRED", `The code has expired (codes last ${CODE_TTL_SECONDS / 60} minutes). ${requestNew}`, register);
      case "used":
        throw new SignetError("CODE_EXPIRED", `The code has already been used to create a key; each code works once. ${requestNew}`, register);
      case "wrong": {
        const tries = await deps.store.addWrongTry(address.lookup, record!.codeId, now, check.side);
        if (tries === undefined) continue; // the code changed under us: judge again
        return fail(refused());
      }
      case "match": {
        const issued = await issueKey(deps, address, { address: address.lookup, codeId: record!.codeId, now }, input.baseUrl);
        if (!issued) continue; // lost the race, or the code changed: judge again
        return issued;
      }
    }
  }
  throw new SignetError("CODE_EXPIRED", `The code changed while it was being checked. ${requestNew}`, register);
}

/** REVOKE_LINK_TTL_MS is how long the revocation link in a key notice works: 7 days. */
const REVOKE_LINK_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** issueKey mints a key from a live code (one transaction) and sends the notice; undefined if the code was taken. */
async function issueKey(
  deps: Pick<KeyServiceDeps, "store" | "mailer" | "warn">,
  address: EmailAddress,
  claim: CodeClaim,
  baseUrl: string,
): Promise<IssuedKey | undefined> {
  const key = generateApiKey();
  const keyHash = hashApiKey(key);
  const keyId = newKeyId();
  const token = newRevokeToken();
  const link = { tokenHash: hashApiKey(token), keyHash, expiresAt: claim.now + REVOKE_LINK_TTL_MS };
  const createdAt = new Date(claim.now).toISOString();
  const record = {
    keyHash,
    keyId,
    email: address.display,
    owner: address.lookup,
    last4: key.slice(-4),
    createdAt,
    lastUsedAt: createdAt,
    revokeTokenHash: link.tokenHash,
  };
  if (!(await deps.store.mintKey(claim, record, link))) return undefined;
  const revoke = { keyId, baseUrl, linkUrl: `${baseUrl}/v1/keys/revoke?token=${token}`, linkExpiresAt: new Date(link.expiresAt).toISOString() };
  try {
    await deps.mailer.send(keyNoticeMail(address.display, keyHint(key), createdAt, revoke));
  } catch (error) {
    // The key exists and must be shown now; a lost notice is reported, not fatal.
    deps.warn?.("key notice e-mail failed", { keyId, error: (error as Error).message });
  }
  return { key, email: address.display, createdAt, message: ISSUED_MESSAGE };
}

/**
 * denialMessages are the words of every 401 the API-key check gives; the gateway's own
 * missing-key answer and the OpenAPI example use `missing` too. No double quotes or backslashes:
 * API Gateway pastes these raw into a JSON string ($context.authorizer.message in the
 * ACCESS_DENIED gateway response).
 */
export const denialMessages = {
  missing: "Missing API key: send the header Authorization: Bearer sgn_... (get a key from /v1/auth/register).",
  notBearer: "Malformed Authorization header: send Authorization: Bearer sgn_... with your API key.",
  malformed: "Malformed API key: a key is sgn_ followed by 38 letters and digits. Copy it again in full.",
  checksum: "The API key's checksum does not match: it was mistyped or cut short. Copy it again in full.",
  unknown: "Unknown API key: it was never issued. Get a new one from /v1/auth/register.",
  revoked: "Revoked API key: it was revoked by its owner and no longer works. Get a new one from /v1/auth/register.",
} as const;

/**
 * authorize checks an Authorization header: form and checksum first (no database read for a
 * typo), then the stored hash. Store failures propagate (the caller answers 503, not 401).
 */
export async function authorize(deps: Pick<KeyServiceDeps, "store" | "now" | "warn">, header: string | undefined): Promise<AuthDecision> {
  const bearer = parseBearer(header);
  if (!bearer.ok) return { allow: false, message: bearer.reason === "missing" ? denialMessages.missing : denialMessages.notBearer };
  const format = checkApiKeyFormat(bearer.token);
  if (!format.ok) return { allow: false, message: format.reason === "checksum" ? denialMessages.checksum : denialMessages.malformed };
  const keyHash = hashApiKey(bearer.token);
  const record = await deps.store.getKey(keyHash);
  if (!record) return { allow: false, message: denialMessages.unknown };
  if (record.revokedAt) return { allow: false, message: denialMessages.revoked };
  const now = deps.now();
  const notBefore = new Date(now - TOUCH_INTERVAL_MS).toISOString();
  if (record.lastUsedAt < notBefore) {
    try {
      await deps.store.touchKey(keyHash, new Date(now).toISOString(), notBefore);
    } catch (error) {
      deps.warn?.("lastUsedAt update failed", { keyId: record.keyId, error: (error as Error).message });
    }
  }
  return { allow: true, keyId: record.keyId, email: record.email };
}
