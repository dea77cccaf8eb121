import type { Page } from "playwright-core";

/**
 * What every task page shares, whoever drives it (a person playing, or one taking over from an
 * agent): the xterm console and the Monaco editor.
 */
export class TaskWorkbench {
  constructor(
    readonly page: Page,
    readonly baseUrl: string,
  ) {}

  /** Types a line in the console and presses Enter (one action). */
  async typeInConsole(line: string): Promise<void> {
    await this.page.click('[data-testid="terminal"]');
    await this.page.keyboard.type(line);
    await this.page.keyboard.press("Enter");
  }

  /** Replaces the editor's text and runs it with Ctrl+Enter (one action). */
  async runInEditor(text: string): Promise<void> {
    await this.page.waitForSelector('[data-testid="editor"][data-ready="1"] .monaco-editor');
    await this.page.click('[data-testid="editor"] .monaco-editor .view-lines');
    await this.page.keyboard.press("Control+A");
    await this.page.keyboard.press("Delete");
    await this.page.keyboard.insertText(text);
    await this.page.keyboard.press("Control+Enter");
  }
}
