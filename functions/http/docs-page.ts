import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** DocsPage is the API reference page and the Content-Security-Policy that fits it exactly. */
export interface DocsPage {
  html: string;
  contentSecurityPolicy: string;
  /** A strong validator of the page (it only changes with the bundle or the settings). */
  etag: string;
}

// The reference UI's settings: everything that could reach a host other than this API is off.
const scalarConfiguration = {
  slug: "signet",
  // The default fonts come from fonts.scalar.com; system fonts keep the page offline.
  withDefaultFonts: false,
  telemetry: false,
  // The "Ask AI" agent (api.scalar.com through proxy.scalar.com) is on by default on localhost.
  agent: { disabled: true },
  // No proxyUrl: "try it" calls this API directly, same origin. No link to client.scalar.com.
  hideClientButton: true,
  showDeveloperTools: "never",
  persistAuth: false,
  documentDownloadType: "json",
  defaultOpenAllTags: true,
  defaultHttpClient: { targetKey: "shell", clientKey: "curl" },
  // Only the document's hand-written, tested x-codeSamples: the generated clients got multipart
  // wrong (Node.js convert sent body: undefined with a multipart header).
  hiddenClients: true,
  authentication: { preferredSecurityScheme: "bearerAuth" },
};

// The API's base is the folder the page is served from: "/" locally, "/<stage>/" behind API
// Gateway. The document's own server ("/") would lose the stage, so the page names the server.
const initScript = `
;(function () {
  var base = new URL(".", window.location.href).href.replace(/\\/$/, "");
  var configuration = ${JSON.stringify(scalarConfiguration)};
  configuration.url = base + "/openapi.json";
  configuration.servers = [{ url: base, description: "This server" }];
  window.Scalar.createApiReference("#app", configuration);
})();
`;

/**
 * BUNDLE_FILE_NAME is where a bundled Lambda keeps the reference UI, beside its entry file; the
 * stack copies node_modules/@scalar/api-reference/dist/browser/standalone.js there.
 */
const BUNDLE_FILE_NAME = "api-reference.standalone.js";

/** referenceBundlePath finds Scalar's standalone browser bundle: beside the entry when bundled, else in node_modules. */
function referenceBundlePath(): string {
  const beside = fileURLToPath(new URL(`./${BUNDLE_FILE_NAME}`, import.meta.url));
  if (existsSync(beside)) return beside;
  return createRequire(import.meta.url).resolve("@scalar/api-reference/browser/standalone.js");
}

/**
 * buildDocsPage renders the reference page with the bundle inline, so the page is one response:
 * no CDN, no second route. The CSP allows exactly this one script by its hash and nothing outside
 * this origin; styles must be inline because the UI injects its own style sheets at run time.
 */
function buildDocsPage(bundle: string): DocsPage {
  // A "</script" inside the bundle would end the element early; Scalar 1.46 has none, but be safe.
  const script = `${bundle.replace(/<\/script/gi, "<\\/script")}\n${initScript}`;
  const hash = createHash("sha256").update(script, "utf8").digest("base64");
  const html = [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    "<title>Signet API reference</title>",
    '<link rel="icon" href="data:,">',
    "</head>",
    "<body>",
    '<noscript>The API reference needs JavaScript. The raw OpenAPI document is at <a href="openapi.json">openapi.json</a>.</noscript>',
    '<div id="app"></div>',
    `<script>${script}</script>`,
    "</body>",
    "</html>",
  ].join("\n");
  const contentSecurityPolicy = [
    "default-src 'none'",
    `script-src 'sha256-${hash}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join("; ");
  return { html, contentSecurityPolicy, etag: `"${hash.slice(0, 27)}"` };
}

/** loadDocsPage reads the bundle once and builds the page. */
export function loadDocsPage(): DocsPage {
  return buildDocsPage(readFileSync(referenceBundlePath(), "utf8"));
}
