import type { APIGatewayProxyEvent } from "aws-lambda";
import { config } from "#config";

/**
 * publicBaseUrl is the base URL under which a caller reached the API (for links in e-mails):
 * SIGNET_PUBLIC_URL when set; on AWS the gateway's own domain name and stage prefix (set by API
 * Gateway, not by the client, so a forged Host header cannot put another site into a mail);
 * locally the Host the client used.
 */
export function publicBaseUrl(event: APIGatewayProxyEvent): string {
  if (config.publicUrl) return config.publicUrl;
  const headers = (event.headers ?? {}) as Record<string, string | undefined>;
  const host = headers.host ?? headers.Host ?? "localhost";
  if (config.runtime === "local") return `http://${host}`;
  const full = event.requestContext?.path ?? event.path;
  const prefix = full.endsWith(event.path) ? full.slice(0, full.length - event.path.length) : "";
  return `https://${event.requestContext?.domainName ?? host}${prefix}`;
}
