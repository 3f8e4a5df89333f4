/** MailMessage is one e-mail with a plain-text and an HTML body. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/**
 * Mailer sends e-mail. Implementations raise SignetError EMAIL_FAILED when the mail service
 * refuses a message and SERVICE_UNAVAILABLE when it cannot be reached.
 */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}
