/** One run of text with the SGR state in force when it was printed. */
export interface AnsiSpan {
  text: string;
  /** Foreground / background as CSS colours, or null for the terminal default. */
  fg: string | null;
  bg: string | null;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
  inverse: boolean;
}

/** The 16 standard colours (xterm's defaults), indexes 0-15. */
const BASE16 = [
  "#000000",
  "#cd3131",
  "#0dbc79",
  "#e5e510",
  "#2472c8",
  "#bc3fbc",
  "#11a8cd",
  "#e5e5e5",
  "#666666",
  "#f14c4c",
  "#23d18b",
  "#f5f543",
  "#3b8eea",
  "#d670d6",
  "#29b8db",
  "#ffffff",
];

/** A colour of the 256-colour palette as CSS. */
export function xterm256(n: number): string {
  if (n < 16) return BASE16[n];
  if (n < 232) {
    const i = n - 16;
    const lv = (v: number) => (v === 0 ? 0 : 55 + v * 40);
    return `rgb(${lv(Math.floor(i / 36))},${lv(Math.floor(i / 6) % 6)},${lv(i % 6)})`;
  }
  const g = 8 + (n - 232) * 10;
  return `rgb(${g},${g},${g})`;
}

type State = Omit<AnsiSpan, "text">;
const reset = (): State => ({ fg: null, bg: null, bold: false, dim: false, italic: false, underline: false, inverse: false });

function applySgr(state: State, params: number[]): void {
  if (!params.length) params = [0];
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    if (p === 0) Object.assign(state, reset());
    else if (p === 1) state.bold = true;
    else if (p === 2) state.dim = true;
    else if (p === 3) state.italic = true;
    else if (p === 4) state.underline = true;
    else if (p === 7) state.inverse = true;
    else if (p === 22) state.bold = state.dim = false;
    else if (p === 23) state.italic = false;
    else if (p === 24) state.underline = false;
    else if (p === 27) state.inverse = false;
    else if (p >= 30 && p <= 37) state.fg = BASE16[p - 30];
    else if (p === 39) state.fg = null;
    else if (p >= 40 && p <= 47) state.bg = BASE16[p - 40];
    else if (p === 49) state.bg = null;
    else if (p >= 90 && p <= 97) state.fg = BASE16[p - 90 + 8];
    else if (p >= 100 && p <= 107) state.bg = BASE16[p - 100 + 8];
    else if (p === 38 || p === 48) {
      // 38;5;n (palette) or 38;2;r;g;b (true colour); a malformed tail is ignored.
      let colour: string | null = null;
      if (params[i + 1] === 5 && params[i + 2] !== undefined) {
        colour = xterm256(Math.min(255, Math.max(0, params[i + 2])));
        i += 2;
      } else if (params[i + 1] === 2 && params[i + 4] !== undefined) {
        const c = params.slice(i + 2, i + 5).map((v) => Math.min(255, Math.max(0, v)));
        colour = `rgb(${c.join(",")})`;
        i += 4;
      } else break;
      if (p === 38) state.fg = colour;
      else state.bg = colour;
    }
  }
}

// CSI sequences (ESC [ ... final byte), OSC (ESC ] ... BEL or ESC \) and other two-byte escapes.
const ESCAPE = /\x1b\[([0-9;?]*)([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/**
 * Splits terminal output into styled spans: SGR sequences (ESC[...m: 16, 256 and true colours,
 * bold, dim, italic, underline, inverse) set the style; every other escape sequence (cursor moves,
 * titles) is dropped. Carriage returns before a newline are dropped too.
 */
export function parseAnsi(input: string): AnsiSpan[] {
  const out: AnsiSpan[] = [];
  const state = reset();
  let last = 0;
  const push = (text: string) => {
    text = text.replace(/\r+\n/g, "\n");
    if (!text) return;
    const prev = out[out.length - 1];
    if (prev && sameStyle(prev, state)) prev.text += text;
    else out.push({ text, ...state });
  };
  for (const m of input.matchAll(ESCAPE)) {
    push(input.slice(last, m.index));
    last = m.index! + m[0].length;
    if (m[2] === "m" && !m[1]?.includes("?")) {
      applySgr(
        state,
        (m[1] ?? "")
          .split(";")
          .filter((s) => s !== "")
          .map(Number),
      );
    }
  }
  push(input.slice(last));
  return out;
}

function sameStyle(a: State, b: State): boolean {
  return (
    a.fg === b.fg && a.bg === b.bg && a.bold === b.bold && a.dim === b.dim && a.italic === b.italic && a.underline === b.underline && a.inverse === b.inverse
  );
}

/** The text without any escape sequence. */
export function stripAnsi(input: string): string {
  return parseAnsi(input)
    .map((s) => s.text)
    .join("");
}

/** Inline CSS for a span (inverse swaps the colours). */
export function spanStyle(s: AnsiSpan): Record<string, string> {
  const style: Record<string, string> = {};
  let fg = s.fg;
  let bg = s.bg;
  if (s.inverse) [fg, bg] = [bg ?? "#e5e5e5", fg ?? "#000000"];
  if (fg) style.color = fg;
  if (bg) style.backgroundColor = bg;
  if (s.bold) style.fontWeight = "bold";
  if (s.dim) style.opacity = "0.7";
  if (s.italic) style.fontStyle = "italic";
  if (s.underline) style.textDecoration = "underline";
  return style;
}

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/** Terminal output as HTML: escaped text in `<span style>` runs. */
export function ansiToHtml(input: string): string {
  return parseAnsi(input)
    .map((s) => {
      const css = Object.entries(spanStyle(s))
        .map(([k, v]) => `${k.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase())}:${v}`)
        .join(";");
      return css ? `<span style="${css}">${escapeHtml(s.text)}</span>` : escapeHtml(s.text);
    })
    .join("");
}
