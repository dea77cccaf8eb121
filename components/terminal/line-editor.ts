/**
 * The console's line discipline, apart from xterm so it can be tested: turns key input into
 * screen writes and events (a line entered, Ctrl+C). One line + Enter is one action; the arrow
 * keys walk the history; Ctrl+C interrupts a running action or clears the line.
 */
export interface LineEditorEvents {
  /** Text to write to the terminal. */
  write(data: string): void;
  /** A line was entered. */
  line(text: string): void;
  /** Ctrl+C was pressed. */
  interrupt(): void;
}

const HISTORY_MAX = 200;

export class LineEditor {
  private buffer = "";
  private cursor = 0;
  private history: string[] = [];
  /** Position in history while browsing (history.length = the line being typed). */
  private historyPos = 0;
  private draft = "";
  /** While an action runs, keys other than Ctrl+C are ignored. */
  busy = false;

  constructor(
    private readonly events: LineEditorEvents,
    public prompt: string,
  ) {}

  /** The line being typed. */
  get line(): string {
    return this.buffer;
  }

  /** Writes the prompt (and the current line) on a fresh line. */
  showPrompt(): void {
    this.events.write(`\x1b[32m${this.prompt}\x1b[0m${this.buffer}`);
    if (this.cursor < this.buffer.length) this.events.write(`\x1b[${this.buffer.length - this.cursor}D`);
  }

  /** Adds an action run from elsewhere (the editor) to the history. */
  remember(text: string): void {
    if (text.trim() && this.history[this.history.length - 1] !== text) this.history.push(text);
    if (this.history.length > HISTORY_MAX) this.history.shift();
    this.historyPos = this.history.length;
  }

  /** Feeds terminal input (what xterm's onData gives: keys, escape sequences or pasted text). */
  input(data: string): void {
    if (data === "\x03") {
      if (this.busy) {
        this.events.interrupt();
        return;
      }
      this.events.write("^C\r\n");
      this.buffer = "";
      this.cursor = 0;
      this.historyPos = this.history.length;
      this.showPrompt();
      return;
    }
    if (this.busy) return;
    switch (data) {
      case "\r": {
        const text = this.buffer;
        this.events.write("\r\n");
        this.buffer = "";
        this.cursor = 0;
        if (text.trim()) {
          this.remember(text);
          this.events.line(text);
        } else {
          this.showPrompt();
        }
        return;
      }
      case "\x7f":
      case "\b":
        if (this.cursor > 0) {
          this.buffer = this.buffer.slice(0, this.cursor - 1) + this.buffer.slice(this.cursor);
          this.cursor--;
          this.redraw();
        }
        return;
      case "\x1b[3~": // Delete
        if (this.cursor < this.buffer.length) {
          this.buffer = this.buffer.slice(0, this.cursor) + this.buffer.slice(this.cursor + 1);
          this.redraw();
        }
        return;
      case "\x1b[A":
        this.browse(-1);
        return;
      case "\x1b[B":
        this.browse(1);
        return;
      case "\x1b[D":
        if (this.cursor > 0) {
          this.cursor--;
          this.events.write("\x1b[D");
        }
        return;
      case "\x1b[C":
        if (this.cursor < this.buffer.length) {
          this.cursor++;
          this.events.write("\x1b[C");
        }
        return;
      case "\x1b[H":
      case "\x01":
        this.cursor = 0;
        this.redraw();
        return;
      case "\x1b[F":
      case "\x05":
        this.cursor = this.buffer.length;
        this.redraw();
        return;
      case "\x15": // Ctrl+U
        this.buffer = this.buffer.slice(this.cursor);
        this.cursor = 0;
        this.redraw();
        return;
    }
    if (data.startsWith("\x1b")) return; // other escape sequences: ignored
    // Typed or pasted text; control characters inside it act as their keys (a paste with
    // newlines enters each full line as it comes).
    const re = /\r\n|[\r\n\x03\x7f]/g;
    let last = 0;
    for (let m = re.exec(data); ; m = re.exec(data)) {
      const text = data.slice(last, m ? m.index : data.length).replace(/[\x00-\x08\x0b-\x1f]/g, "");
      if (text && !this.busy) {
        this.buffer = this.buffer.slice(0, this.cursor) + text + this.buffer.slice(this.cursor);
        this.cursor += text.length;
        this.redraw();
      }
      if (!m) break;
      this.input(m[0] === "\n" || m[0] === "\r\n" ? "\r" : m[0]);
      last = m.index + m[0].length;
    }
  }

  private browse(delta: number): void {
    if (this.history.length === 0) return;
    if (this.historyPos === this.history.length) this.draft = this.buffer;
    const next = Math.min(this.history.length, Math.max(0, this.historyPos + delta));
    if (next === this.historyPos) return;
    this.historyPos = next;
    this.buffer = next === this.history.length ? this.draft : this.history[next];
    this.cursor = this.buffer.length;
    this.redraw();
  }

  /** Rewrites the current line: carriage return, clear line, prompt, text, cursor. */
  private redraw(): void {
    this.events.write("\r\x1b[2K");
    this.showPrompt();
  }
}
