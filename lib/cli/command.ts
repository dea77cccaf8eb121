import { parseArgs } from "node:util";
import { z } from "zod";
import { BadInputError } from "@/lib/errors";
import type { BackendChoice } from "@/lib/sandbox";

/**
 * A command's flags: one zod object, the only place a flag is stated. Each field's zod type gives
 * the flag's parse type (boolean, repeated for an array, else a string the schema coerces), its
 * default and whether it is required; `.describe()` gives its help line, and
 * `.meta({ value: "N", short: "x" })` the value's name in the help and a one-letter alias.
 */
export type FlagsSchema = z.ZodObject;

/** The `--backend` flag's values: the sandbox backend a command runs on. */
export const backendSchema: z.ZodEnum<{ [K in BackendChoice]: K }> = z.enum(["local", "docker", "auto"]);

/** A positional argument, stated beside the flags. A variadic one takes the rest and comes last. */
export interface Positional {
  name: string;
  help: string;
  required?: boolean;
  variadic?: boolean;
}

/** One `icstudio` subcommand. Each lives in its own file under lib/cli/commands/. */
export interface Command<S extends FlagsSchema = FlagsSchema> {
  name: string;
  summary: string;
  flags: S;
  positionals?: readonly Positional[];
  /** Prose shown by --help after the flags (how the command works, what --json prints). */
  help?: string;
  /** Runs the command on flags the schema has checked, with its defaults filled in. */
  // biome-ignore lint/suspicious/noConfusingVoidType: a run() that returns nothing (exit 0) is an async function without a return, typed Promise<void>
  run(args: { values: z.output<S>; positionals: string[] }): Promise<number | void>;
}

export function defineCommand<S extends FlagsSchema>(command: Command<S>): Command<S> {
  return command;
}

/** Flag metadata read from a field's `.meta()`. */
interface FlagMeta {
  value?: string;
  short?: string;
}

/** What the parser and the help need to know of one flag, read off its zod type. */
export interface FlagSpec {
  name: string;
  type: "string" | "boolean";
  multiple: boolean;
  short?: string;
  required: boolean;
  default?: unknown;
  /** The value's name in the help (`--turns N`); none for a boolean. */
  value?: string;
  description: string;
}

type Def = { type: string; innerType?: z.ZodType; in?: z.ZodType; defaultValue?: unknown; entries?: Record<string, string | number>; element?: z.ZodType };
const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def; optin?: string } })._zod;

/** A flag's parse type, default, value name and help, from its zod type (wrappers outside in). */
export function flagSpec(name: string, schema: z.ZodType): FlagSpec {
  let meta: FlagMeta & { description?: string } = {};
  let dflt: unknown;
  let s = schema;
  for (;;) {
    meta = { ...(z.globalRegistry.get(s) as FlagMeta | undefined), ...meta };
    const def = defOf(s).def;
    if (def.type === "default" || def.type === "prefault") dflt ??= def.defaultValue;
    const inner =
      def.type === "pipe"
        ? def.in
        : ["optional", "default", "prefault", "nullable", "readonly", "catch", "nonoptional"].includes(def.type)
          ? def.innerType
          : undefined;
    if (!inner) break;
    s = inner;
  }
  const base = defOf(s).def;
  const type = base.type === "boolean" ? "boolean" : "string";
  const multiple = base.type === "array";
  const entries =
    base.type === "enum"
      ? Object.values(base.entries!)
      : multiple && defOf(base.element!).def.type === "enum"
        ? Object.values(defOf(base.element!).def.entries!)
        : undefined;
  const value = type === "boolean" ? undefined : (meta.value ?? (entries ? entries.join("|") : base.type === "number" ? "N" : name.toUpperCase()));
  const optin = defOf(schema).optin;
  return {
    name,
    type,
    multiple,
    short: meta.short,
    required: optin !== "optional" && optin !== "defaulted",
    default: dflt,
    value,
    description: meta.description ?? "",
  };
}

export function flagSpecs(schema: FlagsSchema): FlagSpec[] {
  return Object.entries(schema.shape).map(([name, s]) => flagSpec(name, s as z.ZodType));
}

const HELP_FLAG: FlagSpec = { name: "help", type: "boolean", multiple: false, short: "h", required: false, description: "print this help" };

/** The `parseArgs` options table of a command, derived from its flags. */
export function parseOptions(command: Command) {
  const options: Record<string, { type: "string" | "boolean"; multiple?: boolean; short?: string }> = {};
  for (const f of [...flagSpecs(command.flags), HELP_FLAG]) {
    options[f.name] = { type: f.type, ...(f.multiple ? { multiple: true } : {}), ...(f.short ? { short: f.short } : {}) };
  }
  return options;
}

/** The flag a parseArgs error is about (`--turns`), from its message. */
function flagOfParseError(message: string): string | undefined {
  return /'(-{1,2}[^'\s=]+)/.exec(message)?.[1];
}

export type ParsedArgs<S extends FlagsSchema> = { help: true } | { help: false; values: z.output<S>; positionals: string[] };

/**
 * Parses argv for a command: flags by the parse types of its schema, then checked by the schema;
 * positionals against their definitions. Any problem is a BadInputError naming the flag
 * (`--turns: must be at least 1`) or `arguments`. `--help` / `-h` wins over everything else.
 */
export function parseCommandArgs<S extends FlagsSchema>(command: Command<S>, argv: string[]): ParsedArgs<S> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: parseOptions(command as unknown as Command),
      allowPositionals: Boolean(command.positionals?.length),
      strict: true,
    });
  } catch (err) {
    const message = (err as Error).message.replace(/^TypeError \[[A-Z_]+\]: /, "");
    const code = (err as { code?: string }).code;
    if (argv.includes("--help") || argv.includes("-h")) return { help: true };
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION")
      throw new BadInputError(`unknown flag (\`icstudio ${command.name} --help\` lists them)`, flagOfParseError(message) ?? "arguments");
    if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL")
      throw new BadInputError(`takes no arguments, got ${JSON.stringify(/'([^']*)'/.exec(message)?.[1] ?? "")}`, "arguments");
    const flag = flagOfParseError(message);
    if (flag && /argument missing/.test(message)) throw new BadInputError("needs a value", flag.replace(/ .*/, ""));
    if (flag && /does not take an argument/.test(message)) throw new BadInputError("takes no value", flag);
    throw new BadInputError(message, flag ?? "arguments");
  }
  const { help, ...values } = parsed.values as Record<string, unknown>;
  if (help) return { help: true };
  const positionals = parsed.positionals;
  checkPositionals(command.positionals ?? [], positionals);
  return { help: false, values: parseFlags(command.flags, values), positionals };
}

function checkPositionals(defs: readonly Positional[], given: string[]): void {
  const missing = defs.slice(given.length).find((p) => p.required);
  if (missing) throw new BadInputError(`missing ${positionalUsage(missing)}: ${missing.help}`, "arguments");
  if (!defs.at(-1)?.variadic && given.length > defs.length) throw new BadInputError(`unexpected argument ${JSON.stringify(given[defs.length])}`, "arguments");
}

/** Wording for zod's own messages about a flag; a message the schema states itself wins over these. */
const flagMessages: z.core.$ZodErrorMap = (iss) => {
  if (iss.input === undefined) return "required";
  if (iss.code === "invalid_type" && iss.expected === "int") return `must be a whole number, got ${String(iss.input)}`;
  if (iss.code === "invalid_type" && iss.expected === "number") return "must be a number";
  if (iss.code === "invalid_value") {
    const v = iss.values.map(String);
    return `must be ${v.length > 1 ? `${v.slice(0, -1).join(", ")} or ${v.at(-1)}` : v[0]}, got ${JSON.stringify(iss.input)}`;
  }
  if (iss.code === "too_small" && iss.origin === "number") return `must be at least ${String(iss.minimum)}`;
  if (iss.code === "too_big" && iss.origin === "number") return `must be at most ${String(iss.maximum)}`;
  return undefined;
};

/** Checks flags against a zod schema; the first problem is a BadInputError naming its flag (`--turns: ...`). */
export function parseFlags<S extends z.ZodType>(schema: S, values: unknown): z.output<S> {
  const parsed = schema.safeParse(values, { error: flagMessages });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new BadInputError(issue.message, `--${String(issue.path[0] ?? "")}`);
  }
  return parsed.data;
}

/** Flags a command needs only in some of its forms (`studies create --name N`): each missing one is a BadInputError naming it. */
export function requireFlags<V extends Record<string, unknown>, K extends keyof V & string>(
  values: V,
  messages: Record<K, string>,
): V & { [k in K]-?: NonNullable<V[k]> } {
  for (const [k, message] of Object.entries(messages) as [K, string][]) if (values[k] === undefined) throw new BadInputError(message, `--${k}`);
  return values as V & { [k in K]-?: NonNullable<V[k]> };
}

function positionalUsage(p: Positional): string {
  return `<${p.name}${p.variadic ? "..." : ""}>`;
}

/** `--turns N`, `-h, --help`. */
function flagUsage(f: FlagSpec): string {
  return `${f.short ? `-${f.short}, ` : ""}--${f.name}${f.value ? ` ${f.value}` : ""}`;
}

/** A flag's help line: its description, and its default when it has one worth saying. */
export function flagHelp(f: FlagSpec): string {
  const shown =
    f.default === undefined || f.default === false || (Array.isArray(f.default) && !f.default.length)
      ? ""
      : ` (default ${Array.isArray(f.default) ? f.default.join(",") : String(f.default)})`;
  return `${f.description}${shown}`.trim();
}

/** Help lines in two columns, continuation lines of the right one indented under it. */
function columns(rows: [string, string][]): string[] {
  const w = Math.max(...rows.map(([l]) => l.length)) + 2;
  return rows.flatMap(([left, right]) => right.split("\n").map((line, i) => `  ${(i ? "" : left).padEnd(w)}${line}`.trimEnd()));
}

/** The usage line: positionals, then the required flags, then `[options]`. */
export function commandUsage(command: Command): string {
  const specs = flagSpecs(command.flags);
  const parts = [
    `icstudio ${command.name}`,
    ...(command.positionals ?? []).map((p) => (p.required ? positionalUsage(p) : `[${positionalUsage(p)}]`)),
    ...specs.filter((f) => f.required).map(flagUsage),
    ...(specs.some((f) => !f.required) ? ["[options]"] : []),
  ];
  return parts.join(" ");
}

export function commandHelp(command: Command): string {
  const lines = [`usage: ${commandUsage(command)}`, "", command.summary];
  if (command.positionals?.length) lines.push("", "arguments:", ...columns(command.positionals.map((p) => [positionalUsage(p), p.help])));
  const flags = [...flagSpecs(command.flags), HELP_FLAG];
  lines.push("", "options:", ...columns(flags.map((f) => [flagUsage(f), flagHelp(f)])));
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
