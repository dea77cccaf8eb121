import { TaskWorkbench } from "./task-workbench";

/** The agent view of a task (`/play/<env>/<dataset>:<id>?agent=1`), as a test drives it. */
export class AgentPage extends TaskWorkbench {
  async open(env: string, dataset: string, id: string): Promise<void> {
    await this.page.goto(`${this.baseUrl}/play/${env}/${encodeURIComponent(`${dataset}:${id}`)}?agent=1`);
    await this.page.waitForSelector('[data-testid="terminal"][data-ready="1"]');
    // An <option> is never "visible" to Playwright: wait for it to be in the page.
    await this.page.waitForSelector('[data-testid="agent-model"] option', { state: "attached" });
  }

  async start(model: string, policy: string, turns: number): Promise<void> {
    await this.page.selectOption('[data-testid="agent-model"]', model);
    await this.page.selectOption('[data-testid="agent-policy"]', policy);
    await this.page.fill('[data-testid="agent-turns"]', String(turns));
    await this.page.click('[data-testid="agent-run"]');
  }

  async click(control: "pause" | "step" | "resume" | "stop" | "takeover" | "handback" | "submit"): Promise<void> {
    await this.page.click(`[data-testid="agent-${control}"]:not([disabled])`);
  }

  /** Waits until the status line shows this mode (running, paused, human, submitted...). */
  async waitStatus(text: string, timeout = 60_000): Promise<void> {
    await this.page.waitForFunction((t) => (document.querySelector('[data-testid="agent-status"]')?.textContent ?? "").startsWith(t), text, { timeout });
  }

  /** Waits until `n` turns are listed. */
  async waitTurns(n: number, timeout = 60_000): Promise<void> {
    await this.page.waitForFunction((want) => document.querySelectorAll('[data-testid="agent-turns-list"] > li').length >= want, n, { timeout });
  }

  async turnCount(): Promise<number> {
    return this.page.locator('[data-testid="agent-turns-list"] > li').count();
  }

  async actors(): Promise<string[]> {
    return this.page.$$eval('[data-testid="agent-turns-list"] > li', (els) => els.map((e) => e.getAttribute("data-actor") ?? ""));
  }

  /** The stored episode's id. */
  async episodeId(): Promise<string> {
    return (await this.page.getAttribute('[data-testid="agent-view"]', "data-episode")) ?? "";
  }

  async reward(): Promise<number> {
    const el = await this.page.waitForSelector('[data-testid="agent-reward"]', { timeout: 60_000 });
    return Number(/reward ([\d.]+)/.exec((await el.textContent()) ?? "")?.[1]);
  }
}
