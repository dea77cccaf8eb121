import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";

/** The pages around the playground (header, /tasks, not-found, studies), as a test reads them. */
export class SitePage {
  constructor(
    readonly page: Page,
    readonly baseUrl: string,
  ) {}

  /** Goes to `url` (a path) and returns the HTTP status of the document. */
  async visit(url: string): Promise<number> {
    const res = await this.page.goto(`${this.baseUrl}${url}`);
    return res?.status() ?? 0;
  }

  /** The header's links, as [label, href]. */
  async navLinks(): Promise<[string, string][]> {
    return this.page.$$eval('[data-testid="site-nav"] a', (as) =>
      as.map((a) => [a.textContent?.trim() ?? "", a.getAttribute("href") ?? ""] as [string, string]),
    );
  }

  /** The not-found page's heading and detail, or null when the page is not one (within 15 s). */
  async notFound(): Promise<{ heading: string; detail: string; links: string[] } | null> {
    // A notFound() thrown by a dynamic page arrives as an error shell that the client fills in.
    const shown = await this.page.waitForSelector('[data-testid="not-found"]', { timeout: 15_000 }).then(
      () => true,
      () => false,
    );
    if (!shown) return null;
    return {
      heading: (await this.page.textContent('[data-testid="not-found"] h1')) ?? "",
      detail: (await this.page.textContent('[data-testid="not-found-detail"]')) ?? "",
      links: await this.page.$$eval('[data-testid="not-found"] li a', (as) => as.map((a) => a.getAttribute("href") ?? "")),
    };
  }

  /** Saves a 1440×900 screenshot of the page as it is now, under e2e/artifacts/. */
  async screenshot(dir: string, name: string): Promise<string> {
    fs.mkdirSync(dir, { recursive: true });
    await this.page.setViewportSize({ width: 1440, height: 900 });
    const file = path.join(dir, `${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }
}
