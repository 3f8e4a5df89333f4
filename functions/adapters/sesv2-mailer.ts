import { SESv2Client, SendEmailCommand } from "@aws-sdk/client-sesv2";
import { config } from "#config";
import { SignetError } from "#domain/errors.ts";
import type { Mailer } from "#domain/mailer.ts";

/** SesMailerOptions say who sends and through which endpoint (the local stand-in, or SES). */
export interface SesMailerOptions {
  sender: string;
  region: string;
  endpoint?: string;
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
  return new SignetError(
    "EMAIL_FAILED",
    "The e-mail service refused to send the code to this address, so no code is pending; check the address and retry.",
    { cause: error },
  );
}

/** createSesMailer returns a Mailer sending through SES v2 (SendEmail, simple content). */
export function createSesMailer(options: SesMailerOptions): Mailer {
  const client = new SESv2Client({
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 2_000, requestTimeout: 5_000 },
  });
  return {
    async send(message) {
      try {
        await client.send(
          new SendEmailCommand({
            FromEmailAddress: options.sender,
            Destination: { ToAddresses: [message.to] },
            Content: {
              Simple: {
                Subject: { Data: message.subject, Charset: "UTF-8" },
                Body: { Text: { Data: message.text, Charset: "UTF-8" }, Html: { Data: message.html, Charset: "UTF-8" } },
              },
            },
          }),
        );
      } catch (error) {
        throw toMailError(error);
      }
    },
  };
}

let shared: Mailer | undefined;

/** defaultMailer is this container's mailer, created once on first use from config. */
export function defaultMailer(): Mailer {
  shared ??= createSesMailer({ sender: config.mail.sender, region: config.region, ...(config.mail.sesEndpoint ? { endpoint: config.mail.sesEndpoint } : {}) });
  return shared;
}
