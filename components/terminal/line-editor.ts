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
  /**
   * Where the terminal's cursor is, in cells from the start of the prompt (the prompt and the
   * line wrap over as many rows as they need, so every move is computed in rows and columns).
   */
  private drawn = 0;

  /** `cols` gives the terminal's width now (it changes when the console is resized). */
  constructor(
    private readonly events: LineEditorEvents,
    public prompt: string,
    private readonly cols: () => number = () => 80,
  ) {}

  private width(): number {
    return Math.max(1, Math.floor(this.cols()) || 80);
  }

  /** Moves the terminal's cursor from cell `from` to cell `to` (both from the prompt's start), across rows. */
  private moveCursor(from: number, to: number): void {
    const w = this.width();
    const rows = Math.floor(to / w) - Math.floor(from / w);
    let out = "";
    if (rows < 0) out += `\x1b[${-rows}A`;
    if (rows > 0) out += `\x1b[${rows}B`;
    const col = to % w;
    out += "\r";
    if (col > 0) out += `\x1b[${col}C`;
    if (from !== to) this.events.write(out);
    this.drawn = to;
  }

  /** The line being typed. */
  get line(): string {
    return this.buffer;
  }

  /** Writes the prompt (and the current line) on a fresh line. */
  showPrompt(): void {
    const end = this.prompt.length + this.buffer.length;
    // At an exact multiple of the width the terminal holds the cursor on the last column (a
    // pending wrap): a space and a carriage return put it at the start of the next row, as counted.
    const wrap = end > 0 && end % this.width() === 0 ? " \r\x1b[K" : "";
    this.events.write(`\x1b[32m${this.prompt}\x1b[0m${this.buffer}${wrap}`);
    this.drawn = end;
    this.moveCursor(end, this.prompt.length + this.cursor);
  }

  /** Puts the cursor after the line's last character (before a newline, so output never overwrites the line's later rows). */
  private toEnd(): void {
    this.moveCursor(this.drawn, this.prompt.length + this.buffer.length);
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
      this.toEnd();
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
        this.toEnd();
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
          this.moveCursor(this.drawn, this.prompt.length + this.cursor);
        }
        return;
      case "\x1b[C":
        if (this.cursor < this.buffer.length) {
          this.cursor++;
          this.moveCursor(this.drawn, this.prompt.length + this.cursor);
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

  /**
   * Rewrites the current line in place: up to the prompt's first row, clear to the end of the
   * screen (every row the line wrapped onto), prompt, text, cursor.
   */
  private redraw(): void {
    const up = Math.floor(this.drawn / this.width());
    this.events.write(`${up > 0 ? `\x1b[${up}A` : ""}\r\x1b[J`);
    this.drawn = 0;
    this.showPrompt();
  }
}
