import { describe, expect, it } from "vitest";
import { z } from "zod";
import { commandHelp, defineCommand, parseCommandArgs, parseOptions, type FlagsSchema, type Command } from "./command";
import evalCommand from "./commands/eval";
import { episodeFilters, filterFlags, filtersFromSpec } from "@/lib/trajectories/cli-filters";
import { BadInputError } from "@/lib/errors";

// One zod object per command states each flag once: the parser's table, the checked and typed
// values `run` receives, and the help lines all come from it.
const demo = defineCommand({
  name: "demo",
  summary: "A command to test the derivation with.",
  positionals: [{ name: "files", help: "the files to read", required: true, variadic: true }],
  flags: z.object({
    env: z.enum(["bash", "sql"]).describe("the environment"),
    turns: z.coerce.number().int().min(1).max(100).default(10).describe("turn limit"),
    out: z.string().optional().describe("write here\ninstead of stdout").meta({ value: "FILE" }),
    tag: z.array(z.string()).default([]).describe("a tag; repeat for more").meta({ short: "t" }),
    json: z.boolean().default(false).describe("print JSON"),
  }),
  help: "Notes after the flags.",
  async run() {},
});

function parse<S extends FlagsSchema>(command: Command<S>, argv: string[]) {
  const r = parseCommandArgs(command, argv);
  if (r.help) throw new Error("expected flags, got --help");
  return r;
}

function badInput(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(BadInputError);
    return (err as Error).message;
  }
  throw new Error("expected a BadInputError");
}

describe("flags derived from a command's zod schema", () => {
  it("derives each flag's parse type from its zod type, and -h/--help for every command", () => {
    expect(parseOptions(demo as unknown as Command)).toEqual({
      env: { type: "string" },
      turns: { type: "string" },
      out: { type: "string" },
      tag: { type: "string", multiple: true, short: "t" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    });
  });

  it("hands run checked, typed values with the schema's defaults", () => {
    const r = parse(demo, ["a.json", "--env", "sql", "b.json", "-t", "x", "--tag", "y", "--turns", "3"]);
    expect(r.positionals).toEqual(["a.json", "b.json"]);
    expect(r.values).toEqual({ env: "sql", turns: 3, tag: ["x", "y"], json: false });
    expect(parse(demo, ["a", "--env", "bash"]).values).toEqual({ env: "bash", turns: 10, tag: [], json: false });
  });

  it("writes the usage and help lines from the schema: value names, defaults, continuation lines", () => {
    const help = commandHelp(demo as unknown as Command);
    expect(help.split("\n")).toEqual([
      "usage: icstudio demo <files...> --env bash|sql [options]",
      "",
      "A command to test the derivation with.",
      "",
      "arguments:",
      "  <files...>  the files to read",
      "",
      "options:",
      "  --env bash|sql  the environment",
      "  --turns N       turn limit (default 10)",
      "  --out FILE      write here",
      "                  instead of stdout",
      "  -t, --tag TAG   a tag; repeat for more",
      "  --json          print JSON",
      "  -h, --help      print this help",
      "",
      "Notes after the flags.",
    ]);
  });

  it("names the flag of a bad value, a missing one, an unknown one; `arguments` for positionals", () => {
    expect(badInput(() => parse(demo, ["a", "--env", "sql", "--turns", "0"]))).toBe("--turns: must be at least 1");
    expect(badInput(() => parse(demo, ["a", "--env", "sql", "--turns", "many"]))).toBe("--turns: must be a number");
    expect(badInput(() => parse(demo, ["a", "--env", "cobol"]))).toBe('--env: must be bash or sql, got "cobol"');
    expect(badInput(() => parse(demo, ["a"]))).toBe("--env: required");
    expect(badInput(() => parse(demo, ["a", "--env"]))).toBe("--env: needs a value");
    expect(badInput(() => parse(demo, ["a", "--env", "sql", "--json=yes"]))).toBe("--json: takes no value");
    expect(badInput(() => parse(demo, ["a", "--env", "sql", "--colour", "red"]))).toBe("--colour: unknown flag (`icstudio demo --help` lists them)");
    expect(badInput(() => parse(demo, ["--env", "sql"]))).toBe("arguments: missing <files...>: the files to read");
    const none = defineCommand({ name: "none", summary: "", flags: z.object({}), async run() {} });
    expect(badInput(() => parse(none, ["extra"]))).toBe('arguments: takes no arguments, got "extra"');
  });

  it("answers --help before checking anything else", () => {
    expect(parseCommandArgs(demo, ["--help"])).toEqual({ help: true });
    expect(parseCommandArgs(demo, ["-h", "--turns", "0", "--colour"])).toEqual({ help: true });
  });

  it("shares the filter flags as one fragment: parsed into store filters, named when bad", () => {
    const cmd = defineCommand({ name: "f", summary: "", flags: filterFlags.extend({ json: z.boolean().default(false) }), async run() {} });
    const r = parse(cmd, ["--env", "sql,bash", "--success", "false", "--model", " a , b ", "--run", "r1"]);
    expect(episodeFilters(r.values)).toEqual({ environment: ["sql", "bash"], success: false, model: ["a", "b"], runId: "r1" });
    expect(badInput(() => parse(cmd, ["--env", "sql,cobol"]))).toBe('--env: unknown environment "cobol"; one of bash, sql, python, ctf');
    expect(badInput(() => parse(cmd, ["--flag", "odd"]))).toMatch(/^--flag: unknown flag "odd"; one of negative-reward/);
    expect(commandHelp(cmd as unknown as Command)).toMatch(/^ {2}--success true\|false +only solved \(true\) or unsolved \(false\) episodes$/m);
    expect(filtersFromSpec("model=gpt-4,policy=react,env=sql,bash", "--a")).toEqual({ model: ["gpt-4"], policy: ["react"], environment: ["sql", "bash"] });
    expect(badInput(() => filtersFromSpec("env=cobol", "--b"))).toBe('--b env: unknown environment "cobol"; one of bash, sql, python, ctf');
  });

  it("drives a real command: eval's flags, defaults and help", () => {
    const r = parse(evalCommand, ["--env", "sql", "--limit", "2"]);
    expect(r.values).toMatchObject({ env: "sql", limit: 2, turns: 10, policy: "try-again", concurrency: 4, profile: "studio", json: false });
    expect(badInput(() => parse(evalCommand, ["--env", "sql", "--turns", "101"]))).toBe("--turns: must be at most 100");
    const help = commandHelp(evalCommand as unknown as Command);
    expect(help).toMatch(/^usage: icstudio eval --env bash\|sql\|python\|ctf \[options\]$/m);
    expect(help).toMatch(/^ {2}--turns N +turn limit \(default 10\)$/m);
    expect(help).toMatch(/^ {2}--policy single-turn\|try-again\|react\|plan-solve +the policy \(default try-again\)$/m);
  });
});
