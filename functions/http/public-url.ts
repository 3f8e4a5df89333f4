import type { APIGatewayProxyEvent } from "aws-lambda";
import { config } from "#config";

let localServerUrl: string | undefined;

/**
 * useLocalServerUrl tells where the local server listens (local/server.ts calls it once it
 * listens; the port may have been chosen at start): links in mails and the local CRL URL follow it.
 */
export function useLocalServerUrl(url: string): void {
  localServerUrl = url.replace(/\/+$/, "");
}

/** localBaseUrl is SIGNET_PUBLIC_URL, else the local server's own address; undefined before it listens. */
export function localBaseUrl(): string | undefined {
  return config.publicUrl ?? localServerUrl;
}

/**
 * publicBaseUrl is the base URL of the API for links in e-mails: SIGNET_PUBLIC_URL when set; on
 * AWS the gateway's own domain name and stage prefix (set by API Gateway, not by the client);
 * locally the address the local server is bound to. Never the request's Host header, so a forged
 * Host cannot put another site (and the revocation token) into a mail.
 */
export function publicBaseUrl(event: APIGatewayProxyEvent): string {
  if (config.publicUrl) return config.publicUrl;
  if (config.runtime === "local") return localServerUrl ?? "http://localhost:3000";
  const full = event.requestContext?.path ?? event.path;
  const prefix = full.endsWith(event.path) ? full.slice(0, full.length - event.path.length) : "";
  return `https://${event.requestContext?.domainName ?? "localhost"}${prefix}`;
}
