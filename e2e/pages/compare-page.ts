import type { Page } from "playwright-core";

/** The compare page and its episode picker, as a test drives it. */
export class ComparePage {
  constructor(
    readonly page: Page,
    readonly baseUrl: string,
  ) {}

  async open(query = ""): Promise<void> {
    await this.page.goto(`${this.baseUrl}/compare${query}`);
    await this.page.waitForSelector("h1:has-text('Compare')");
  }

  /** Searches the picker's list (query, actions, output). */
  async search(text: string): Promise<void> {
    await this.page.fill('[data-testid="compare-search"]', text);
    await Promise.all([this.page.waitForURL(/[?&]q=/), this.page.press('[data-testid="compare-search"]', "Enter")]);
  }

  /** Ids the picker lists. */
  async candidates(): Promise<string[]> {
    return this.page.$$eval('[data-testid="compare-candidate"]', (rows) => rows.map((r) => r.getAttribute("data-id") ?? ""));
  }

  /** Ticks these episodes and opens them side by side. */
  async compare(ids: string[]): Promise<void> {
    for (const id of ids) await this.page.check(`[data-testid="compare-candidate"][data-id="${id}"] input[type="checkbox"]`);
    await Promise.all([this.page.waitForURL(/[?&]ids=/), this.page.click('[data-testid="compare-picked"]')]);
    await this.page.waitForSelector('[data-testid="compare"]');
  }

  /** The episode ids of the columns shown. */
  async columns(): Promise<string[]> {
    return this.page.$$eval('[data-testid="compare-column"] a', (as) => as.map((a) => (a.getAttribute("href") ?? "").split("/").pop() ?? ""));
  }
}
