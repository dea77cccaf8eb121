import type { Page } from "playwright-core";

/** The runs pages (`/runs`, `/runs/<id>`), as a test drives them. */
export class RunsPage {
  constructor(
    readonly page: Page,
    readonly baseUrl: string,
  ) {}

  /** Opens /runs, fills the new-run form and starts; resolves with the new run's id. */
  async launch(o: { env: string; dataset: string; limit: number; model: string; policy: string; turns: number; concurrency?: number }): Promise<string> {
    await this.page.goto(`${this.baseUrl}/runs`);
    await this.page.click('[data-testid="run-new"]');
    await this.page.selectOption('[data-testid="run-env"]', o.env);
    await this.page.selectOption('[data-testid="run-dataset"]', o.dataset);
    await this.page.fill('[data-testid="run-limit"]', String(o.limit));
    await this.page.selectOption('[data-testid="run-model"]', o.model);
    await this.page.selectOption('[data-testid="run-policy"]', o.policy);
    await this.page.fill('[data-testid="run-turns"]', String(o.turns));
    if (o.concurrency) await this.page.fill('[data-testid="run-concurrency"]', String(o.concurrency));
    await this.page.click('[data-testid="run-start"]');
    await this.page.waitForURL(/\/runs\/[^/?]+$/, { timeout: 60_000 });
    return new URL(this.page.url()).pathname.split("/").pop()!;
  }

  /** The progress as shown: [done, total]. */
  async progress(): Promise<[number, number]> {
    const text = (await this.page.textContent('[data-testid="run-progress"]')) ?? "";
    const m = /^(\d+) \/ (\d+)$/.exec(text.trim());
    if (!m) throw new Error(`progress reads ${JSON.stringify(text)}`);
    return [Number(m[1]), Number(m[2])];
  }

  /** Waits until the progress reads exactly `text` ("5 / 5"). */
  async waitProgress(text: string, timeout = 90_000): Promise<void> {
    await this.page.waitForFunction((t) => document.querySelector('[data-testid="run-progress"]')?.textContent?.trim() === t, text, { timeout });
  }

  async successRate(): Promise<string> {
    return ((await this.page.textContent('[data-testid="run-success-rate"]')) ?? "").trim();
  }

  /** Each task row's status, in order. */
  async taskStatuses(): Promise<string[]> {
    return this.page.$$eval('[data-testid="run-task"]', (els) => els.map((e) => e.getAttribute("data-status") ?? ""));
  }
}
