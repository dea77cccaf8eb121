import { isSubmit, parseSubmit } from "@/lib/env/submit";

/**
 * Turns a model's reply into an action. An action is the content of a fenced code block, or what
 * follows the policy's action line (`Action: ...`). `submit` (optionally with an argument) and
 * `skip` end the episode. A reply with nothing usable is an invalid turn: `reason` is written to be
 * shown to the model so it can correct itself.
 */
export type ParsedReply =
  | {
      kind: "action";
      /** What runs. */
      action: string;
      thought?: string;
      /** The action as the reply wrote it, when that differs from what runs (`execute[<code>]`): what InterCode's ReAct logged. */
      written?: string;
    }
  | { kind: "submit"; arg?: string; thought?: string }
  | { kind: "skip"; thought?: string }
  | { kind: "invalid"; reason: string; thought?: string };

export interface ParseOptions {
  /** Label of the action line, e.g. "Action" (matched case-insensitively at the start of a line). */
  actionLabel?: string;
  /** Label of the thought line, e.g. "Thought"; its text is returned as the thought. */
  thoughtLabel?: string;
  /** Language shown in the error message's example fence (sql, bash, python). */
  fenceLanguage?: string;
  /** InterCode's ReAct format: an action written `execute[<code>]` runs the code (profile row `react.action-format`). */
  executeBrackets?: boolean;
  /** A word that marks an action on its own (InterCode CTF's `cmd`): without a fence, the first line starting with it is the action. */
  barePrefix?: string;
}

/** `skip`: the model gives up on the task (InterCode's skip action). */
export function isSkip(action: string): boolean {
  return /^\s*skip\s*$/i.test(action);
}

const FENCE = /```[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)```/;
const FENCE_G = /```[ \t]*([\w+-]*)[^\n]*\n([\s\S]*?)```/g;

function classify(raw: string, thought: string | undefined): ParsedReply {
  const action = raw.trim();
  if (!action) return { kind: "invalid", reason: "the action was empty", thought };
  const submit = parseSubmit(action);
  if (submit) return submit.arg ? { kind: "submit", arg: submit.arg, thought } : { kind: "submit", thought };
  if (isSkip(action)) return { kind: "skip", thought };
  return { kind: "action", action, thought };
}

function cleanThought(text: string, thoughtLabel: string | undefined): string | undefined {
  let t = text.trim();
  if (thoughtLabel) t = t.replace(new RegExp(`^\\s*${escapeRe(thoughtLabel)}\\s*:\\s*`, "i"), "");
  return t ? t : undefined;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Parses a reply; never throws. */
export function parseAction(reply: string, options: ParseOptions = {}): ParsedReply {
  const parsed = parseReply(reply, options);
  if (!options.executeBrackets || parsed.kind !== "action") return parsed;
  const inner = parseLoggedAction(parsed.action, { executeBrackets: true });
  if (inner.kind === "submit") return inner.arg ? { kind: "submit", arg: inner.arg, thought: parsed.thought } : { kind: "submit", thought: parsed.thought };
  if (inner.kind !== "run") return parsed;
  const run = classify(inner.code, parsed.thought);
  return run.kind === "action" && run.action !== parsed.action ? { ...run, written: parsed.action } : run;
}

function parseReply(reply: string, options: ParseOptions): ParsedReply {
  const text = reply.replace(/\r\n/g, "\n");
  const fenceLang = options.fenceLanguage ?? "";
  const label = options.actionLabel;

  if (label) {
    // The last action line wins: models sometimes restate the format before answering.
    const lineRe = new RegExp(`^[ \\t>*_]*${escapeRe(label)}[*_]*\\s*:[*_]*[ \\t]*(.*)$`, "gim");
    let last: RegExpExecArray | null = null;
    for (let m = lineRe.exec(text); m; m = lineRe.exec(text)) last = m;
    if (last) {
      const before = text.slice(0, last.index);
      const thought = cleanThought(before, options.thoughtLabel);
      const after = text.slice(last.index + last[0].length - last[1]!.length);
      const fence = FENCE.exec(after);
      // A fence right after the label (on the same line or the next) holds the action.
      if (fence && after.slice(0, fence.index).trim() === "") return classify(fence[2]!, thought);
      const inline = last[1]!.trim().replace(/^`(.*)`$/, "$1");
      if (inline) return classify(inline, thought);
      return { kind: "invalid", reason: `the "${label}:" line had no action after it`, thought };
    }
  }

  const fences = [...text.matchAll(FENCE_G)];
  if (fences.length > 0) {
    const first = fences[0]!;
    const thought = cleanThought(text.slice(0, first.index), options.thoughtLabel);
    return classify(first[2]!, thought);
  }

  const bare = text.trim();
  if ((isSubmit(bare) || isSkip(bare)) && !bare.includes("\n")) return classify(bare, undefined);
  if (options.barePrefix) {
    const lines = text.split("\n");
    const at = lines.findIndex((l) => new RegExp(`^\\s*${escapeRe(options.barePrefix!)}\\s+\\S`).test(l));
    if (at >= 0) return classify(lines[at]!, cleanThought(lines.slice(0, at).join("\n"), options.thoughtLabel));
  }

  const example = label ? `a line "${label}: <your ${fenceLang || "command"}>" or a fenced block` : "a fenced block";
  const reason = bare
    ? `no action found in your reply: give the command in ${example} such as \`\`\`${fenceLang}\\n...\\n\`\`\`, or reply "submit" when you are done`
    : "your reply was empty";
  return { kind: "invalid", reason, thought: cleanThought(text, options.thoughtLabel) };
}

/** What a logged action does when replayed. */
export type LoggedAction = { kind: "run"; code: string } | { kind: "submit"; arg: string } | { kind: "blocked" };

export interface LoggedActionFormat {
  /** ReAct and Plan & Solve runs write actions as `execute[<code>]` (profile row `react.action-format`). */
  executeBrackets?: boolean;
  /** InterCode CTF writes actions as `cmd <command>` (profile row `ctf.action-format`). */
  cmdWrapper?: boolean;
}

const EXECUTE_RE = /^\s*execute\s*\[([\s\S]*)\]\s*$/;
const CMD_RE = /^\s*cmd\s+([\s\S]*?)\s*$/;

/**
 * Reads an action as a loop logged it: `submit` / `submit <arg>` submits; `blocked` (InterCode's
 * mark for a reply it could not parse) runs nothing; under the formats asked for, `execute[<code>]`
 * and `cmd <command>` run what they wrap; anything else runs as written. Never throws.
 */
export function parseLoggedAction(action: string, format: LoggedActionFormat = {}): LoggedAction {
  if (/^\s*blocked\s*$/.test(action)) return { kind: "blocked" };
  let code = action;
  if (format.executeBrackets) {
    const m = EXECUTE_RE.exec(action);
    if (m) return { kind: "run", code: m[1]! };
  }
  if (format.cmdWrapper) {
    const m = CMD_RE.exec(action);
    if (m) code = m[1]!;
  }
  const s = parseSubmit(code, { exact: true });
  if (s) return { kind: "submit", arg: s.arg };
  return { kind: "run", code };
}
