/** One line of `git status --short`. */
export interface GitStatusEntry {
  /**
   * The two status letters with surrounding spaces removed, as InterCode read them by splitting the
   * output on whitespace: " M" → "M", "??" → "??", "D " → "D", "MM" → "MM", "R " → "R".
   */
  code: string;
  /** The path as git names it (unquoted, unescaped); a wholly untracked directory keeps its trailing "/". */
  path: string;
  /** For renames and copies (`R  old -> new`): the old path; `path` is the new one. */
  origPath?: string;
}

/**
 * Parses `git status --short` (or `--porcelain`, without `-z`) output into entries.
 *
 * Handles untracked `??` and ignored `!!` lines, every XY pair, `R  old -> new` and `C  old -> new`,
 * and paths git put in double quotes because they hold spaces, quotes, control characters or
 * (with core.quotepath on) non-ASCII bytes, written as C escapes and octal `\ooo` UTF-8 bytes.
 * Lines that are not status lines (a `## branch` header, blank lines) are skipped. Never throws.
 */
export function parseGitStatus(output: string): GitStatusEntry[] {
  const entries: GitStatusEntry[] = [];
  for (const raw of output.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.length < 4 || line[2] !== " " || !/^[ MTADRCU?!]{2}$/.test(line.slice(0, 2))) continue;
    const code = line.slice(0, 2).trim();
    if (/[RC]/.test(line.slice(0, 2))) {
      const first = readPath(line, 3);
      if (first && line.startsWith(" -> ", first.end)) {
        const second = readPath(line, first.end + 4);
        if (second) {
          entries.push({ code, path: second.path, origPath: first.path });
          continue;
        }
      }
    }
    entries.push({ code, path: readRest(line, 3) });
  }
  return entries;
}

/** A path at `start`: quoted (to its closing quote) or bare (to " -> " or the end of the line). */
function readPath(line: string, start: number): { path: string; end: number } | null {
  if (line[start] === '"') return readQuoted(line, start);
  const arrow = line.indexOf(" -> ", start);
  const end = arrow === -1 ? line.length : arrow;
  if (end === start) return null;
  return { path: line.slice(start, end), end };
}

/** The rest of the line as one path (only renames and copies carry an arrow). */
function readRest(line: string, start: number): string {
  if (line[start] === '"') {
    const quoted = readQuoted(line, start);
    if (quoted && quoted.end === line.length) return quoted.path;
  }
  return line.slice(start);
}

const SIMPLE_ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 };

/** Decodes git's C-style quoting; octal escapes are raw bytes of UTF-8 text. */
function readQuoted(line: string, start: number): { path: string; end: number } | null {
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let i = start + 1; i < line.length; i++) {
    const ch = line[i];
    if (ch === '"') return { path: new TextDecoder().decode(Uint8Array.from(bytes)), end: i + 1 };
    if (ch === "\\" && i + 1 < line.length) {
      const next = line[i + 1];
      const octal = /^[0-7]{3}/.exec(line.slice(i + 1, i + 4));
      if (octal) {
        bytes.push(Number.parseInt(octal[0], 8) & 0xff);
        i += 3;
        continue;
      }
      if (next in SIMPLE_ESCAPES) {
        bytes.push(SIMPLE_ESCAPES[next]);
        i += 1;
        continue;
      }
    }
    const cp = line.codePointAt(i) ?? 0;
    const text = String.fromCodePoint(cp);
    bytes.push(...encoder.encode(text));
    i += text.length - 1;
  }
  return null; // no closing quote: not a quoted path after all
}
