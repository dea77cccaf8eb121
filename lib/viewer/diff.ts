/** One line of a line diff: kept, only in the player's output (removed) or only in gold's (added). */
export interface DiffLine {
  op: "same" | "del" | "add";
  text: string;
}

/** Lines beyond which the LCS table would be too big; the rest is compared as one block. */
export const MAX_DIFF_LINES = 2000;

/**
 * A line diff of `a` (the player's output) against `b` (gold's) by longest common subsequence:
 * common prefix and suffix are stripped first, then an LCS table over the middle. Inputs longer
 * than MAX_DIFF_LINES lines in the middle fall back to "all of a removed, all of b added".
 */
export function diffLines(a: string, b: string): DiffLine[] {
  const x = splitLines(a);
  const y = splitLines(b);
  let start = 0;
  while (start < x.length && start < y.length && x[start] === y[start]) start++;
  let endX = x.length;
  let endY = y.length;
  while (endX > start && endY > start && x[endX - 1] === y[endY - 1]) {
    endX--;
    endY--;
  }
  // Loops, not push(...spread): a spread passes every line as an argument, and a few hundred
  // thousand lines overflow the call stack (RangeError).
  const out: DiffLine[] = [];
  for (let i = 0; i < start; i++) out.push({ op: "same", text: x[i] });
  if (endX - start > MAX_DIFF_LINES || endY - start > MAX_DIFF_LINES) {
    for (let i = start; i < endX; i++) out.push({ op: "del", text: x[i] });
    for (let j = start; j < endY; j++) out.push({ op: "add", text: y[j] });
  } else {
    for (const l of lcsDiff(x.slice(start, endX), y.slice(start, endY))) out.push(l);
  }
  for (let i = endX; i < x.length; i++) out.push({ op: "same", text: x[i] });
  return out;
}

function splitLines(s: string): string[] {
  if (s === "") return [];
  const lines = s.replace(/\r\n/g, "\n").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function lcsDiff(x: string[], y: string[]): DiffLine[] {
  const n = x.length;
  const m = y.length;
  // table[i][j] = LCS length of x[i..] and y[j..], flattened.
  const w = m + 1;
  const table = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i * w + j] = x[i] === y[j] ? table[(i + 1) * w + j + 1] + 1 : Math.max(table[(i + 1) * w + j], table[i * w + j + 1]);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      out.push({ op: "same", text: x[i] });
      i++;
      j++;
    } else if (table[(i + 1) * w + j] >= table[i * w + j + 1]) {
      out.push({ op: "del", text: x[i++] });
    } else {
      out.push({ op: "add", text: y[j++] });
    }
  }
  while (i < n) out.push({ op: "del", text: x[i++] });
  while (j < m) out.push({ op: "add", text: y[j++] });
  return out;
}

/** Counts of a diff's lines by kind. */
export function diffStats(d: DiffLine[]): { same: number; del: number; add: number } {
  const s = { same: 0, del: 0, add: 0 };
  for (const l of d) s[l.op]++;
  return s;
}
