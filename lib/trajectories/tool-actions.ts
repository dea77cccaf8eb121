import type { EnvName } from "@/lib/datasets/types";

/**
 * Tool calls (Inspect's and ATIF's) and InterCode actions, both ways: one table for the importers
 * and the exporters. A tool that runs code carries the code (bash `cmd`, python `code`, sql
 * `query`); `submit(answer)` is InterCode's `submit <answer>`; any other tool is kept as
 * `<name> <arguments as JSON>`.
 */

/** The environment a tool acts in, when it is one of InterCode's. */
export function toolEnv(fn: string): EnvName | null {
  if (fn === "bash" || fn === "bash_session" || fn === "shell") return "bash";
  if (fn === "python") return "python";
  if (fn === "sql" || fn === "query") return "sql";
  return null;
}

const str = (v: unknown) => (typeof v === "string" ? v : v === undefined || v === null ? "" : JSON.stringify(v));

/** A tool call as an InterCode action. */
export function toolCallAction(fn: string, args: Record<string, unknown>): string {
  if (fn === "submit") {
    const a = str(args.answer ?? args.flag ?? "");
    return a ? `submit ${a}` : "submit";
  }
  const env = toolEnv(fn);
  if (env === "bash" && (typeof args.cmd === "string" || typeof args.command === "string")) return str(args.cmd ?? args.command);
  if (env === "python" && typeof args.code === "string") return args.code;
  if (env === "sql" && typeof args.query === "string") return args.query;
  return `${fn} ${JSON.stringify(args)}`;
}

/** An InterCode action as the tool call that runs it in `env` (the inverse of toolCallAction). */
export function actionToolCall(env: string, action: string): { fn: string; args: Record<string, unknown> } {
  const submit = /^submit(?:\s([\s\S]*))?$/.exec(action);
  if (submit) return { fn: "submit", args: { answer: submit[1] ?? "" } };
  if (env === "python") return { fn: "python", args: { code: action } };
  if (env === "sql") return { fn: "sql", args: { query: action } };
  return { fn: "bash", args: { cmd: action } };
}
