import type { Page } from "playwright-core";

/** The models page, as a test drives it. */
export class ModelsPage {
  constructor(
    readonly page: Page,
    readonly baseUrl: string,
  ) {}

  async open(): Promise<void> {
    await this.page.goto(`${this.baseUrl}/models`);
    await this.page.waitForSelector('[data-testid="models-table"]');
  }

  row(id: string) {
    return this.page.locator(`[data-testid="model-row"][data-model-id="${id}"]`);
  }

  /** Fills the add form and saves; resolves with the error shown, or null once the row is listed. */
  async add(fields: { provider: string; baseURL: string; model: string; id?: string; apiKey?: string }): Promise<string | null> {
    if (!(await this.page.locator('[data-testid="model-form"]').isVisible())) await this.page.click('[data-testid="model-add"]');
    await this.page.selectOption('[data-testid="model-provider"]', fields.provider);
    await this.page.fill('[data-testid="model-base-url"]', fields.baseURL);
    await this.page.fill('[data-testid="model-name"]', fields.model);
    await this.page.fill('[data-testid="model-id"]', fields.id ?? "");
    await this.page.fill('[data-testid="model-api-key"]', fields.apiKey ?? "");
    const before = await this.page.evaluate(() => Number(document.querySelector('[data-testid="model-error"]')?.getAttribute("data-attempt") ?? 0));
    await this.page.click('[data-testid="model-save"]');
    const id = fields.id || fields.model;
    // The row, or an error answering this save (not one left from the last).
    const outcome = await Promise.race([
      this.row(id)
        .waitFor({ timeout: 15_000 })
        .then(() => null),
      this.page
        .waitForFunction((n) => Number(document.querySelector('[data-testid="model-error"]')?.getAttribute("data-attempt") ?? 0) > n, before, {
          timeout: 15_000,
        })
        .then(() => this.page.locator('[data-testid="model-error"]').textContent()),
    ]);
    return outcome;
  }

  /** Clicks "test connection" on a model's row and waits for the result text. */
  async test(id: string): Promise<string> {
    const row = this.row(id);
    await row.locator('[data-testid="model-test"]').click();
    const result = row.locator('[data-testid="model-test-result"]');
    await this.page.waitForFunction((el) => !!el && el.textContent !== "" && el.textContent !== "testing…", await result.elementHandle(), { timeout: 60_000 });
    return (await result.textContent()) ?? "";
  }

  async status(id: string): Promise<string> {
    return (await this.row(id).getAttribute("data-status")) ?? "";
  }
}
