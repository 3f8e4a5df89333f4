import type { APIGatewayProxyEvent } from "aws-lambda";

/** PublicUrlSettings are what the public base URL depends on: SIGNET_PUBLIC_URL, the runtime, and where the local server listens. */
export interface PublicUrlSettings {
  publicUrl?: string;
  runtime: "aws" | "local";
  /** The local server's own address once it listens (local/server.ts); undefined before and on AWS. */
  localServerUrl?: string;
}

/**
 * publicBaseUrl is the base URL of the API for links in e-mails: SIGNET_PUBLIC_URL when set; on
 * AWS the gateway's own domain name and stage prefix (set by API Gateway, not by the client);
 * locally the address the local server is bound to. Never the request's Host header, so a forged
 * Host cannot put another site (and the revocation token) into a mail.
 */
export function publicBaseUrl(event: APIGatewayProxyEvent, settings: PublicUrlSettings): string {
  if (settings.publicUrl) return settings.publicUrl;
  if (settings.runtime === "local") return settings.localServerUrl ?? "http://localhost:3000";
  const full = event.requestContext?.path ?? event.path;
  const prefix = full.endsWith(event.path) ? full.slice(0, full.length - event.path.length) : "";
  return `https://${event.requestContext?.domainName ?? "localhost"}${prefix}`;
}
