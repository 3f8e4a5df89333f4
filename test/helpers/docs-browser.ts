import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

/** DocsBrowser is a headless Chromium with a throw-away profile. */
export interface DocsBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * launchDocsBrowser starts Debian's Chromium (/usr/bin/chromium) headless with a fresh profile
 * and every background service that would phone home switched off, so any request the page
 * makes is the page's own.
 */
export async function launchDocsBrowser(executablePath = process.env.SIGNET_CHROMIUM ?? "/usr/bin/chromium"): Promise<DocsBrowser> {
  const profile = mkdtempSync(join(tmpdir(), "signet-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
