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

  /** Each row's status chip, in row order. */
  async rowStatuses(): Promise<string[]> {
    return this.page.$$eval('[data-testid="episode-row"] [data-testid="status"]', (els) => els.map((e) => e.getAttribute("data-status") ?? ""));
  }

  /** Ids of the rows shown. */
  async rowIds(): Promise<string[]> {
    return this.page.$$eval('[data-testid="episode-row"]', (rows) => rows.map((r) => r.getAttribute("data-id") ?? ""));
  }

  async openEpisode(id: string, query = ""): Promise<void> {
    await this.page.goto(`${this.baseUrl}/episodes/${encodeURIComponent(id)}${query}`);
    await this.page.waitForSelector('[data-testid="replay"][data-ready="1"]');
  }

  /** Waits until the page's URL says `?turn=n` (the replay updates it as you step) and returns it. */
  async urlTurn(n: number): Promise<string | null> {
    await this.page.waitForFunction((want) => new URL(location.href).searchParams.get("turn") === want, String(n), { timeout: 5_000 }).catch(() => {});
    return new URL(this.page.url()).searchParams.get("turn");
  }

  /** 0-based positions of the timeline items marked aria-current="step". */
  async currentSteps(): Promise<number[]> {
    return this.page.$$eval('[data-testid="turn"][aria-current="step"]', (els) => els.map((e) => Number(e.getAttribute("data-index"))));
  }

  /** Waits until the server has scored every turn (recorded, cached or replayed now). */
  async waitScores(timeout = 90_000): Promise<void> {
    await this.page.waitForFunction(() => !/scoring every turn/.test(document.querySelector('[data-testid="scores-status"]')?.textContent ?? "x"), undefined, {
      timeout,
    });
  }

  /** Each turn's reward label ("would be 1.00", "reward 0.00", "reward –"). */
  async turnRewards(): Promise<string[]> {
    return this.page.$$eval('[data-testid="turn"] [data-testid="turn-reward"]', (els) => els.map((e) => (e.textContent ?? "").trim()));
  }

  /** 0-based positions of the turns marked as printing gold's output. */
  async turnsMatchingGold(): Promise<number[]> {
    return this.page.$$eval('[data-testid="turn"]', (els) =>
      els.flatMap((e) => (e.querySelector('[data-testid="matches-gold"]') ? [Number(e.getAttribute("data-index"))] : [])),
    );
  }

  /** Each turn's actor label ("human · console", "model", "human · editor · taken over by a person"). */
  async turnActors(selector = '[data-testid="turn"] [data-testid="turn-actor"]'): Promise<string[]> {
    return this.page.$$eval(selector, (els) => els.map((e) => (e.textContent ?? "").trim()));
  }

  /** The current turn's SQL table: its header and its rows. */
  async sqlTable(): Promise<{ head: string[]; rows: string[][] }> {
    const t = this.page.locator('[data-testid="turn"][data-current="1"] [data-testid="sql-table"]');
    await t.waitFor();
    return t.evaluate((el) => ({
      head: Array.from(el.querySelectorAll("thead th")).map((c) => c.textContent ?? ""),
      rows: Array.from(el.querySelectorAll("tbody tr")).map((r) => Array.from(r.querySelectorAll("td")).map((c) => c.textContent ?? "")),
    }));
  }

  /** Texts of the suggested tags, as "tag@turn n" or "tag@episode". */
  async suggestions(): Promise<string[]> {
    await this.page.waitForSelector('[data-testid="suggestions"] li');
    return this.page.$$eval('[data-testid="suggestions"] li', (els) =>
      els.map((e) => `${e.children[1]?.textContent ?? ""}@${e.children[0]?.textContent ?? ""}`),
    );
  }

  /** "turn i / n" */
  async position(): Promise<string> {
    return (await this.page.textContent('[data-testid="position"]')) ?? "";
  }

  async press(key: string): Promise<void> {
    await this.page.locator("body").press(key);
  }

  /**
   * The current turn's observation text as stored. A SQL result shows as a table first: it is switched
   * to its raw text, and read only once the raw view is the one drawn (a read between the click and
   * React's commit would see the table's cells).
   */
  async observation(): Promise<string> {
    // Not the window's preview of it (cut short, a SQL result shown as text until the rest comes).
    const current = '[data-testid="turn"][data-current="1"]:not([data-partial])';
    await this.page.waitForSelector(`${current} [data-testid="observation"]`);
    const raw = this.page.locator(`${current} [data-testid="sql-view-raw"]`);
    if (await raw.count()) {
      await raw.click();
      await this.page.waitForSelector(`${current} [data-testid="sql-view-raw"][aria-pressed="true"]`);
      await this.page.waitForFunction((sel) => !document.querySelector(`${sel} [data-testid="sql-table"]`), current);
    }
    return (await this.page.textContent(`${current} [data-testid="observation"]`)) ?? "";
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
