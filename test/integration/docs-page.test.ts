import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { launchDocsBrowser, type DocsBrowser } from "#test/helpers/docs-browser.ts";
import { startLocalServer, type LocalServer } from "#local/server.ts";
import { testContainer } from "#test/helpers/container.ts";

// The reference page needs no backing service; only the try-it check calls GET /v1/health.

const outputDir = "test-output";

let server: LocalServer;
let base: string;
let browser: DocsBrowser;
let page: Page;
const requests: string[] = [];
const foreign: string[] = [];
const consoleErrors: string[] = [];

beforeAll(async () => {
  mkdirSync(outputDir, { recursive: true });
  server = await startLocalServer({ port: 0, host: "127.0.0.1", container: testContainer() });
  base = `http://127.0.0.1:${server.port}`;
  browser = await launchDocsBrowser();
  // Every request the browser makes passes here; anything not for the local server is logged and refused.
  await browser.context.route("**/*", async (route) => {
    const url = route.request().url();
    requests.push(`${route.request().method()} ${url}`);
    if (new URL(url).origin !== base) {
      foreign.push(url);
      await route.abort("blockedbyclient");
      return;
    }
    await route.continue();
  });
  page = await browser.context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(`uncaught: ${error.message}`));
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("GET /docs in Chromium", () => {
  it("loads with a tight CSP, no console errors and no request leaving the local server", async () => {
    const response = await page.goto(`${base}/docs`, { waitUntil: "load" });
    expect(response?.status()).toBe(200);
    const headers = response!.headers();
    expect(headers["content-type"]).toMatch(/^text\/html/);
    expect(headers["content-security-policy"]).toMatch(/default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(headers["content-security-policy"]).not.toMatch(/https?:|\*/);
    expect(headers["cross-origin-embedder-policy"]).toBe("require-corp");

    await page.locator('section[id$="/GET/v1/health"]').waitFor({ timeout: 30_000 });
    await page.waitForLoadState("networkidle");
    await page.screenshot({ path: `${outputDir}/docs-page.png` });

    expect(foreign).toEqual([]);
    expect(consoleErrors).toEqual([]);
    expect(requests).toContain(`GET ${base}/openapi.json`);
  });

  it("answers 304 to a matching If-None-Match and serves the page with a long-lived validator", async () => {
    const first = await fetch(`${base}/docs`);
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[A-Za-z0-9+/]+"$/);
    expect((await first.text()).length).toBeGreaterThan(1_000_000); // the UI travels inline
    const again = await fetch(`${base}/docs`, { headers: { "If-None-Match": etag! } });
    expect(again.status).toBe(304);
    // Proxies that compress turn the tag weak; browsers may send a list.
    for (const header of [`W/${etag}`, `"other", ${etag}`, "*"]) {
      expect((await fetch(`${base}/docs`, { headers: { "If-None-Match": header } })).status, header).toBe(304);
    }
    expect((await fetch(`${base}/docs`, { headers: { "If-None-Match": '"other"' } })).status).toBe(200);
  });

  it("lists every path and method of /openapi.json", async () => {
    const document = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((method) => ({ path, method: method.toUpperCase() })));
    expect(operations.length).toBeGreaterThanOrEqual(12);
    for (const { path, method } of operations) {
      // Each operation is a section whose id ends in /<METHOD><path>, showing its path beside the method.
      const section = page.locator(`section[id$="/${method}${path}"]`);
      await expect.poll(() => section.count(), { message: `${method} ${path} listed` }).toBe(1);
      expect(await section.innerText(), `${method} ${path} shown`).toContain(path);
    }
  });

  it("shows the hand-written request samples (curl first), and the convert one sends a real multipart body", async () => {
    const section = page.locator('section[id$="/POST/v1/convert"]');
    await section.scrollIntoViewIfNeeded();
    await expect.poll(() => section.innerText(), { message: "the curl sample is shown first" }).toContain("-F file=@examples/files/contract.docx");
    const picker = section
      .getByRole("combobox")
      .or(section.locator("button", { hasText: /curl/ }))
      .first();
    await picker.click();
    await page.getByRole("option", { name: /fetch/ }).first().click();
    await expect.poll(() => section.innerText(), { message: "the fetch sample" }).toContain("new FormData()");
    expect(await section.innerText()).not.toContain("body: undefined");
    await page.screenshot({ path: `${outputDir}/docs-code-sample.png` });
    expect(consoleErrors).toEqual([]);
  });

  it('runs "try it" on GET /v1/health and shows the healthy answer', async () => {
    const section = page.locator('section[id$="/GET/v1/health"]');
    await section.getByRole("button", { name: /Test Request/ }).click();
    const client = page.getByRole("dialog", { name: "API Client" });
    const answered = page.waitForResponse((response) => response.url() === `${base}/v1/health`);
    await client.getByRole("button", { name: /Send get request to/ }).click();
    const response = await answered;
    const body = (await response.json()) as { status: string; timestamp: string };
    expect(body.status).toBe("healthy");
    // The client shows this very answer (its timestamp), not the document's example.
    await expect.poll(() => client.innerText()).toContain(body.timestamp);
    const shown = await client.innerText();
    expect(shown).toMatch(/200 OK/);
    expect(shown).toMatch(/"status":\s*"healthy"/);
    await page.screenshot({ path: `${outputDir}/docs-try-it.png` });

    expect(foreign).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
