import { TaskWorkbench } from "./task-workbench";

/** The task page of the playground, as a test drives it. */
export class PlayPage extends TaskWorkbench {
  /** Opens a task (`/play/<env>/<dataset>:<id>`) and waits until the episode is open and the console ready. */
  async open(env: string, dataset: string, id: string, query = ""): Promise<void> {
    await this.page.goto(`${this.baseUrl}/play/${env}/${encodeURIComponent(`${dataset}:${id}`)}${query}`);
    await this.waitReady();
  }

  /** Waits until the console is ready and the episode is open (stored or, before its first action, not yet). */
  async waitReady(): Promise<void> {
    await this.page.waitForSelector('[data-testid="terminal"][data-ready="1"]');
    await this.page.waitForSelector('[data-testid="episode-status"]', { timeout: 60_000 });
    await this.page.waitForSelector('[data-testid="connection"]:has-text("open")');
  }

  /** The episode's status chip: "ready" (no action yet), running, submitted, abandoned, interrupted, error. */
  async status(): Promise<string> {
    return (await this.page.getAttribute('[data-testid="episode-status"]', "data-status")) ?? "";
  }

  async waitStatus(status: string, timeout = 60_000): Promise<void> {
    await this.page.waitForSelector(`[data-testid="episode-status"][data-status="${status}"]`, { timeout });
  }

  /** Clicks Abandon and confirms its dialog with `reason`. */
  async abandon(reason = ""): Promise<void> {
    await this.page.click('[data-testid="abandon"]:not([disabled])');
    await this.page.fill('[data-testid="abandon-dialog-reason"]', reason);
    await this.page.click('[data-testid="abandon-dialog-confirm"]');
  }

  /** The episode id kept in the URL (set once the episode is stored, at its first action). */
  episodeId(): string {
    return new URL(this.page.url()).searchParams.get("episode") ?? "";
  }

  /** Waits until `n` actions are counted ("turns n / limit"). */
  async waitTurns(n: number, timeout = 60_000): Promise<void> {
    await this.page.waitForFunction((want) => new RegExp(`turns ${want} /`).test(document.querySelector('[data-testid="turns"]')?.textContent ?? ""), n, {
      timeout,
    });
    await this.page.waitForSelector('[data-testid="connection"]:has-text("open")');
  }

  async turnsText(): Promise<string> {
    return (await this.page.textContent('[data-testid="turns"]')) ?? "";
  }

  /** The console's text (xterm's rows). */
  async consoleText(): Promise<string> {
    return this.page.evaluate(() =>
      Array.from(document.querySelectorAll('[data-testid="terminal"] .xterm-rows > div'))
        .map((d) => d.textContent ?? "")
        .join("\n"),
    );
  }

  async waitConsole(re: RegExp, timeout = 30_000): Promise<void> {
    await this.page.waitForFunction(
      ([src, flags]) =>
        new RegExp(src, flags).test(
          Array.from(document.querySelectorAll('[data-testid="terminal"] .xterm-rows > div'))
            .map((d) => d.textContent ?? "")
            .join("\n"),
        ),
      [re.source, re.flags] as const,
      { timeout },
    );
  }

  /** Clicks Submit (confirming the dialog a CTF flag asks for, since it ends the episode) and returns the reward. */
  async submit(): Promise<number> {
    await this.page.click('[data-testid="submit"]');
    const first = await this.page.waitForSelector('[data-testid="reward"], [data-testid="submit-dialog"][open]', { timeout: 60_000 });
    if ((await first.getAttribute("data-testid")) === "submit-dialog") await this.page.click('[data-testid="submit-dialog-confirm"]');
    return this.reward();
  }

  /** Waits for the reward to appear and returns it. */
  async reward(): Promise<number> {
    const el = await this.page.waitForSelector('[data-testid="reward"]', { timeout: 60_000 });
    return Number(await el.getAttribute("data-reward"));
  }

  async breakdown(): Promise<string> {
    return (await this.page.textContent('[data-testid="breakdown"]')) ?? "";
  }

  async gold(): Promise<string> {
    return (await this.page.textContent('[data-testid="gold"]')) ?? "";
  }
}
