import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type BrowserContext } from "playwright-core";
import { config } from "@/lib/config";

/** Debian's chromium, headless, with everything that phones home turned off and a fresh profile. */
export async function launchBrowser(): Promise<{ browser: BrowserContext; close(): Promise<void> }> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "ic-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: config().chromium,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-default-apps",
      "--disable-extensions",
      "--metrics-recording-only",
    ],
  });
  return {
    browser: context,
    close: async () => {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Registers beforeAll/afterAll hooks that launch one browser for a test file and close it; the
 * returned getter gives the running browser's context inside tests.
 */
export function useBrowser(hooks: { beforeAll: (fn: () => Promise<void>) => void; afterAll: (fn: () => Promise<void>) => void }): () => BrowserContext {
  let launched: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  hooks.beforeAll(async () => {
    launched = await launchBrowser();
  });
  hooks.afterAll(async () => {
    await launched?.close();
  });
  return () => {
    if (!launched) throw new Error("the browser is not running (useBrowser's beforeAll has not run)");
    return launched.browser;
  };
}

export type { Browser };
