import type { Page } from "playwright-core";

/** What the new-study form asks for. */
export interface StudyForm {
  name: string;
  dataset: string;
  selection: { kind: "slice"; from: number; count: number } | { kind: "random"; count: number; seed: number };
  feedback: "none" | "reward";
  turnLimit: number;
  /** The gold after each submit (the study's seal hides it otherwise). */
  showGoldAfterSubmit?: boolean;
}

/** The studies page (`/play/studies`) and a study's entry point (`/play/study/<id>`), as a test drives them. */
export class StudyPage {
  constructor(
    readonly page: Page,
    readonly baseUrl: string,
  ) {}

  /** Fills the new-study form, creates the study, and returns its id (from the "Work it" link of its row). */
  async create(f: StudyForm): Promise<string> {
    await this.page.goto(`${this.baseUrl}/play/studies`);
    const form = this.page.locator('form[aria-label="new study"]');
    await form.locator('input[name="name"]').fill(f.name);
    await form.locator('select[name="dataset"]').selectOption(f.dataset);
    await form.locator('select[name="kind"]').selectOption(f.selection.kind);
    if (f.selection.kind === "slice") await form.locator('input[name="from"]').fill(String(f.selection.from));
    else await form.locator('input[name="seed"]').fill(String(f.selection.seed));
    await form.locator('input[name="count"]').fill(String(f.selection.count));
    await form.locator('select[name="feedback"]').selectOption(f.feedback);
    await form.locator('input[name="turnLimit"]').fill(String(f.turnLimit));
    if (f.showGoldAfterSubmit) await form.locator('input[name="showGold"]').check();
    await form.locator('button[type="submit"]').click();
    const link = this.page.locator("tr", { hasText: f.name }).locator('a[href^="/play/study/"]', { hasText: "Work it" });
    await link.waitFor({ timeout: 30_000 });
    const href = (await link.getAttribute("href")) ?? "";
    return decodeURIComponent(href.slice("/play/study/".length));
  }

  /** Closes a study (its tasks' seal lifts), as the results page's button does. */
  async close(studyId: string): Promise<void> {
    const r = await fetch(`${this.baseUrl}/api/studies/${encodeURIComponent(studyId)}/close`, { method: "POST" });
    if (!r.ok) throw new Error(`closing study ${studyId}: HTTP ${r.status}`);
  }

  /** Opens the study's entry point (which sends the annotator on to their next task). */
  async enter(studyId: string): Promise<void> {
    await this.page.goto(`${this.baseUrl}/play/study/${encodeURIComponent(studyId)}`);
  }

  /** Types the annotator's name in whichever form asks for it. */
  async giveName(name: string): Promise<void> {
    await this.page.fill('[data-testid="annotator"]', name);
    await this.page.press('[data-testid="annotator"]', "Enter");
  }

  /** Waits until the page is the study's task at `position` (1-based) and returns the progress text. */
  async waitPosition(position: number, timeout = 60_000): Promise<string> {
    await this.page.waitForFunction(
      (p) => new RegExp(`: ${p} / \\d+`).test(document.querySelector('[data-testid="study-progress"]')?.textContent ?? ""),
      position,
      { timeout },
    );
    return (await this.page.textContent('[data-testid="study-progress"]')) ?? "";
  }

  /** The baseline clock in seconds (shown as mm:ss). */
  async clockSeconds(): Promise<number> {
    const text = (await this.page.textContent('[data-testid="clock"]')) ?? "";
    const m = /(\d+):(\d\d)/.exec(text);
    if (!m) throw new Error(`the clock shows ${JSON.stringify(text)}`);
    return Number(m[1]) * 60 + Number(m[2]);
  }

  /** Clicks Skip and answers its in-page dialog with `reason`. */
  async skip(reason: string): Promise<void> {
    await this.page.click('[data-testid="skip"]:not([disabled])');
    await this.page.fill('[data-testid="skip-dialog-reason"]', reason);
    await this.page.click('[data-testid="skip-dialog-confirm"]');
  }
}
