import { SESv2Client, SendEmailCommand } from "@aws-sdk/client-sesv2";
import { withDeadline } from "#adapters/call-deadline.ts";
import { SES_CLIENT_LIMITS, SES_SEND_BUDGET_MS } from "#functions/timeouts.ts";
import { SignetError } from "#domain/shared/errors.ts";
import type { Mailer } from "#domain/keys/mailer.ts";

/**
 * SES_MAILBOX_SIMULATOR is SES's mailbox simulator address that accepts a message and drops it
 * (it works in the SES sandbox too): the decoy recipient of register for addresses outside the
 * allow-list. The local stand-in keeps such a message in its store like any other.
 */
export const SES_MAILBOX_SIMULATOR = "success@simulator.amazonses.com";

/** SesMailerOptions say who sends and through which endpoint (the local stand-in, or SES). */
export interface SesMailerOptions {
  sender: string;
  region: string;
  endpoint?: string;
  /** Static credentials (the local stand-ins'); unset: the SDK's own chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** SES configuration set named on every send (on AWS: reputation metrics, suppression list), also when the identity has no default set. */
  configurationSet?: string;
}

// Answers that mean "try again later" rather than "this message is refused".
const TRANSIENT = new Set(["TooManyRequestsException", "LimitExceededException", "ThrottlingException", "TimeoutError"]);

/** toMailError: no HTTP answer or throttling -> SERVICE_UNAVAILABLE (503); any refusal -> EMAIL_FAILED (502). */
function toMailError(error: unknown): SignetError {
  const failure = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  const status = failure.$metadata?.httpStatusCode;
  if (status === undefined || status === 429 || TRANSIENT.has(failure.name ?? "")) {
    return new SignetError("SERVICE_UNAVAILABLE", "The e-mail service cannot be reached right now, so no code was sent; retry in a moment.", { cause: error });
  }
  return new SignetError("EMAIL_FAILED", "The e-mail service refused to send the code to this address, so no code is pending; check the address and retry.", {
    cause: error,
  });
}

/** createSesMailer returns a Mailer sending through SES v2 (SendEmail, simple content). */
export function createSesMailer(options: SesMailerOptions): Mailer {
  const client = new SESv2Client({
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    // throwOnRequestTimeout: without it the SDK only logs a warning when requestTimeout passes.
    maxAttempts: SES_CLIENT_LIMITS.maxAttempts,
    requestHandler: {
      connectionTimeout: SES_CLIENT_LIMITS.connectionTimeoutMs,
      requestTimeout: SES_CLIENT_LIMITS.requestTimeoutMs,
      throwOnRequestTimeout: true,
    },
  });
  return {
    async send(message) {
      try {
        const command = new SendEmailCommand({
          FromEmailAddress: options.sender,
          ...(options.configurationSet ? { ConfigurationSetName: options.configurationSet } : {}),
          Destination: { ToAddresses: [message.to] },
          Content: {
            Simple: {
              Subject: { Data: message.subject, Charset: "UTF-8" },
              Body: { Text: { Data: message.text, Charset: "UTF-8" }, Html: { Data: message.html, Charset: "UTF-8" } },
            },
          },
        });
        await withDeadline(SES_SEND_BUDGET_MS, (abortSignal) => client.send(command, { abortSignal }));
      } catch (error) {
        throw toMailError(error);
      }
    },
  };
}
