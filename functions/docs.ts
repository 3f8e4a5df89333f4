import { docsRoute } from "#http/contracts/meta.ts";
import { loadDocsPage } from "#http/docs-page.ts";
import { text } from "#http/responses.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";

/**
 * makeDocsHandler builds GET /docs on a container: the API reference page. The pipeline leaves
 * this route's Content-Security-Policy to the page, which allows its one inline script by hash.
 */
export function makeDocsHandler(container: Container) {
  // Built once per container: the bundle and the settings do not change at run time.
  const page = loadDocsPage();
  return httpHandler(container, docsRoute, async (request) => {
    const headers = {
      "Content-Security-Policy": page.contentSecurityPolicy,
      "Cache-Control": "public, max-age=300",
      ETag: page.etag,
    };
    if (etagMatches(request.headers["if-none-match"], page.etag)) return { statusCode: 304, headers, body: "" };
    return text(200, page.html, "text/html; charset=utf-8", headers);
  });
}

/** handler answers GET /docs with this process's container. */
export const handler = makeDocsHandler(processContainer());

/** etagMatches reads If-None-Match as RFC 9110 does: a list, weak tags compared weakly, or *. */
function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((tag) => {
    const candidate = tag.trim();
    return candidate === "*" || candidate.replace(/^W\//, "") === etag.replace(/^W\//, "");
  });
}
