/**
 * A progress bar on stderr: redrawn in place on a terminal, a line every few seconds otherwise.
 * `extra` is free text such as "solved 12 · errors 0".
 */
export class ProgressBar {
  private done = 0;
  private readonly started = Date.now();
  private lastLine = 0;
  private readonly tty: boolean;

  constructor(
    private readonly label: string,
    private total: number,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.tty = Boolean(stream.isTTY);
  }

  setTotal(total: number): void {
    this.total = total;
  }

  tick(n = 1, extra = ""): void {
    this.done += n;
    this.render(extra);
  }

  update(done: number, extra = ""): void {
    this.done = done;
    this.render(extra);
  }

  private render(extra: string): void {
    const now = Date.now();
    const finished = this.done >= this.total;
    if (!this.tty && !finished && now - this.lastLine < 2000) return;
    this.lastLine = now;
    const width = 28;
    const frac = this.total > 0 ? Math.min(1, this.done / this.total) : 1;
    const filled = Math.round(frac * width);
    const elapsed = (now - this.started) / 1000;
    const eta = this.done > 0 && !finished ? ((elapsed / this.done) * (this.total - this.done)).toFixed(0) + "s" : "-";
    const line = `${this.label} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${this.done}/${this.total} ${extra ? extra + " · " : ""}ETA ${eta}`;
    if (this.tty) this.stream.write(`\r\x1b[2K${line}${finished ? "\n" : ""}`);
    else this.stream.write(line + "\n");
  }
}
