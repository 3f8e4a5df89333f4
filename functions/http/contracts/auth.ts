import * as z from "zod";
import { CODE_PATTERN } from "#domain/keys/verification-code.ts";
import { defineRoute } from "#http/contract.ts";

const email = z.string().min(3).max(254).meta({ description: "The e-mail address to register.", example: "me@example.com" });

/** registerRoute: GET /v1/auth/register?email= sends a 6-digit code by e-mail. */
export const registerRoute = defineRoute({
  name: "auth-register",
  method: "GET",
  path: "/v1/auth/register",
  auth: false,
  tag: "API keys",
  summary: "Send a verification code",
  description:
    "Sends a 6-digit code to the address. The answer is the same whether or not the address is known. Rate-limited per mailbox (3 codes per 15 minutes, and 10 per 24 hours by default, SIGNET_REGISTER_DAILY_LIMIT; me+a@example.com and me+b@example.com count as one mailbox, though each gets its own code) and per source IP (20 per hour by default; an IPv6 client counts per /64 network); both windows slide. Over a limit the answer is 429 RATE_LIMIT_ERROR with Retry-After: the seconds until every limit has room again. A code that could not be sent (502/503) does not count. A deployment may allow only some addresses and domains (SIGNET_REGISTER_ALLOW); any other address gets this same answer after the same work (a code record that matches no code, and a mail of the same size to SES's mailbox simulator instead of the address), so neither the answer nor its time tells the list. HEAD is not answered here (405): it would send a mail.",
  query: z.strictObject({ email }),
  body: { kind: "none" },
  success: {
    description: "A code was sent if the address is deliverable.",
    contentType: "application/json",
    schema: z.object({ message: z.string(), expiresInSeconds: z.number().int() }).meta({ id: "RegisterResponse" }),
    example: { message: "If the address can receive mail, a code is on its way. It expires in 15 minutes.", expiresInSeconds: 900 },
  },
  errors: ["RATE_LIMIT_ERROR", "EMAIL_FAILED", "SERVICE_UNAVAILABLE"],
  // Sends mail and takes rate-limit slots: HEAD is 405 here.
  changesState: true,
});

/** verifyCodeRoute: GET /v1/auth/verify?email=&code= mints an API key. */
export const verifyCodeRoute = defineRoute({
  name: "auth-verify",
  method: "GET",
  path: "/v1/auth/verify",
  auth: false,
  tag: "API keys",
  summary: "Exchange the code for an API key",
  description:
    "Checks the code and issues a new API key (\"sgn_\" + 32 random base62 characters + a 6-character CRC32 checksum). The key is shown once; only its SHA-256 hash is stored. A code works once and expires after 15 minutes. A code that does not work gets one answer whatever the reason (422 INVALID_CODE: wrong, none pending, dead, closed to the caller's network), so the answer does not tell whether an address asked for a code; only a caller presenting the right code learns that it expired or was used (422 CODE_EXPIRED). 5 wrong tries from the network that asked for the code (its IPv4 address or IPv6 /64) kill it; 5 wrong tries from all other networks together close it to them, while it keeps working from the requester's network, so a stranger cannot keep an address from getting a key. Each source network may try 10 codes that do not work per 15 minutes over all addresses (SIGNET_VERIFY_IP_FAILURE_LIMIT); beyond that 429 RATE_LIMIT_ERROR with Retry-After. HEAD is not answered here (405): it would use the code up.",
  query: z.strictObject({
    email,
    code: z.string().regex(CODE_PATTERN, "must be the 6 digits from the e-mail").meta({ description: "The 6-digit code from the e-mail.", example: "123456" }),
  }),
  body: { kind: "none" },
  success: {
    description: "The new API key.",
    contentType: "application/json",
    schema: z.object({ key: z.string(), email: z.string(), createdAt: z.iso.datetime(), message: z.string() }).meta({ id: "VerifyCodeResponse" }),
    example: {
      key: "sgn_oYfrlWeHC4H5FXqdeqt5colHAdYXtDbh4Kot9m",
      email: "me@example.com",
      createdAt: "2026-11-22T10:00:00.000Z",
      message: "store this key now: it cannot be shown again",
    },
  },
  errors: ["INVALID_CODE", "CODE_EXPIRED", "RATE_LIMIT_ERROR", "SERVICE_UNAVAILABLE"],
  // Mints a key and uses the code up (or counts a wrong try): HEAD is 405 here.
  changesState: true,
});
