/** WebhookRequest is one POST of a webhook: its headers and exact body. */
export interface WebhookRequest {
  headers: Record<string, string>;
  body: string;
}

/**
 * SendResult is how a POST ended: the receiver's status, or why there was none. A refusal that
 * will not change (a private address, a URL that is not HTTPS) is `permanent`: no retry.
 */
export type SendResult = { statusCode: number } | { error: string; permanent: boolean };

/** WebhookSender POSTs a webhook to a public HTTPS URL, within bounded time, following no redirect. */
export interface WebhookSender {
  post(url: string, request: WebhookRequest): Promise<SendResult>;
}
