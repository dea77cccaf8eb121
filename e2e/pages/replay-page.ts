import type { Page } from "playwright-core";

/** The episode list and the replay page, as a test drives them. */
export class ReplayPage {
  constructor(
    readonly page: Page,
    readonly baseUrl: string,
  ) {}

  /** Opens the list with a query string (`?dataset=...`) and waits for the table. */
  async openList(query = ""): Promise<void> {
    await this.page.goto(`${this.baseUrl}/episodes${query}`);
    await this.page.waitForSelector('[data-testid="episode-table"]');
  }

  /** Uploads log files through the list's import box and waits for its report. */
  async importFiles(files: string[], dataset?: string): Promise<string> {
    await this.page.setInputFiles('[data-testid="import-file"]', files);
    if (dataset) await this.page.fill('[data-testid="import-export"] input[placeholder^="dataset"]', dataset);
    await this.page.click('[data-testid="import-button"]');
    const el = await this.page.waitForSelector('[data-testid="import-report"]', { timeout: 60_000 });
    return (await el.textContent()) ?? "";
  }

  /** Ids of the rows shown. */
  async rowIds(): Promise<string[]> {
    return this.page.$$eval('[data-testid="episode-row"]', (rows) => rows.map((r) => r.getAttribute("data-id") ?? ""));
  }

  async openEpisode(id: string): Promise<void> {
    await this.page.goto(`${this.baseUrl}/episodes/${encodeURIComponent(id)}`);
    await this.page.waitForSelector('[data-testid="replay"][data-ready="1"]');
  }

  /** "turn i / n" */
  async position(): Promise<string> {
    return (await this.page.textContent('[data-testid="position"]')) ?? "";
  }

  async press(key: string): Promise<void> {
    await this.page.locator("body").press(key);
  }

  /** The current turn's observation text. */
  async observation(): Promise<string> {
    return (await this.page.textContent('[data-testid="turn"][data-current="1"] [data-testid="observation"]')) ?? "";
  }

  /** Waits for gold's output beside the replay and returns it. */
  async goldOutput(timeout = 90_000): Promise<string> {
    const el = await this.page.waitForSelector('[data-testid="gold-output"]', { timeout });
    return (await el.textContent()) ?? "";
  }

  async goldSource(): Promise<string> {
    return (await this.page.textContent('[data-testid="gold-source"]')) ?? "";
  }

  /** Tags the current turn and waits until the tag is listed. */
  async tagCurrentTurn(tag: string): Promise<void> {
    await this.page.fill('[data-testid="tag-input"]', tag);
    await this.page.click('[data-testid="add-tag"]');
    await this.page.waitForSelector(`[data-testid="annotation"]:has-text("${tag}")`);
  }

  /** Clicks "continue from turn k" for the current turn; resolves when the playground has the new episode. */
  async branchHere(): Promise<void> {
    await this.page.click('[data-testid="branch"]');
    await this.page.waitForURL(/\/play\/.*[?&]episode=/, { timeout: 60_000 });
  }
}
