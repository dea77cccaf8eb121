import { parseArgs, type ParseArgsConfig } from "node:util";
import type { z } from "zod";
import { BadInputError } from "@/lib/errors";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** One `icstudio` subcommand. Each lives in its own file under lib/cli/commands/. */
export interface Command<O extends Options = Options> {
  name: string;
  summary: string;
  /** Usage lines shown by --help, after `icstudio `. */
  usage: string;
  /** Extra help text (flags explained). */
  help?: string;
  options: O;
  allowPositionals?: boolean;
  run(args: { values: Record<string, string | boolean | string[] | boolean[] | undefined>; positionals: string[] }): Promise<number | void>;
}

export function defineCommand<O extends Options>(command: Command<O>): Command<O> {
  return command;
}

/** Parses argv for a command; unknown flags become a BadInputError naming the flag. */
export function parseCommandArgs(command: Command, argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      options: { ...command.options, help: { type: "boolean", short: "h" } },
      allowPositionals: command.allowPositionals ?? false,
      strict: true,
    });
  } catch (err) {
    throw new BadInputError((err as Error).message.replace(/^TypeError \[[A-Z_]+\]: /, ""), `icstudio ${command.name}`);
  }
}

/** Checks parsed flags against a command's zod schema; the first problem is a BadInputError naming its flag (`--turns: ...`). */
export function parseFlags<S extends z.ZodType>(schema: S, values: unknown): z.output<S> {
  const parsed = schema.safeParse(values);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new BadInputError(issue.message, `--${String(issue.path[0] ?? "")}`);
  }
  return parsed.data;
}

export function commandHelp(command: Command): string {
  const lines = [`usage: icstudio ${command.usage}`, "", command.summary];
  if (command.help) lines.push("", command.help.trimEnd());
  return lines.join("\n");
}

/** Writes a report as JSON to stdout (the only thing on stdout under --json). */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + "\n");
}

/** Progress and logs go to stderr so stdout stays clean for --json. */
export function log(message: string): void {
  process.stderr.write(message + "\n");
}
