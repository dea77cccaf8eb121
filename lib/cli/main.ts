import { commandHelp, parseCommandArgs, type Command } from "./command";
import { config } from "@/lib/config";
import { asStudioError, toExitCode } from "@/lib/errors";

/**
 * `icstudio` subcommands, loaded on demand so that one command's dependencies never slow another.
 * Add a command by adding its module here.
 */
const COMMANDS: Record<string, () => Promise<{ default: Command }>> = {
  import: () => import("./commands/import"),
  export: () => import("./commands/export"),
  stats: () => import("./commands/stats"),
  failures: () => import("./commands/failures"),
  "tasks-qa": () => import("./commands/tasks-qa"),
  "compare-runs": () => import("./commands/compare-runs"),
  scan: () => import("./commands/scan"),
  datasets: () => import("./commands/datasets"),
  play: () => import("./commands/play"),
  "gold-check": () => import("./commands/gold-check"),
  eval: () => import("./commands/eval"),
  models: () => import("./commands/models"),
  "scripted-server": () => import("./commands/scripted-server"),
  recheck: () => import("./commands/recheck"),
  hosts: () => import("./commands/hosts"),
  doctor: () => import("./commands/doctor"),
  store: () => import("./commands/store"),
  studies: () => import("./commands/studies"),
  worker: () => import("./commands/worker"),
};

function mainHelp(): string {
  const names = Object.keys(COMMANDS).sort();
  return [
    "usage: icstudio <command> [options]",
    "",
    "InterCode Studio: play, evaluate and study interactive coding benchmarks.",
    "",
    "commands:",
    ...names.map((n) => `  ${n}`),
    "",
    "Run `icstudio <command> --help` for a command's options.",
  ].join("\n");
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(mainHelp() + "\n");
    return name ? 0 : 2;
  }
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(`icstudio: unknown command ${JSON.stringify(name)}\n\n${mainHelp()}\n`);
    return 2;
  }
  const command = (await load()).default;
  try {
    const args = parseCommandArgs(command, rest);
    if (args.help) {
      process.stdout.write(commandHelp(command) + "\n");
      return 0;
    }
    return (await command.run(args)) ?? 0;
  } catch (err) {
    const e = asStudioError(err);
    process.stderr.write(`icstudio ${name}: ${e.message}\n`);
    if (e.code === "internal" && debugOn()) process.stderr.write(String((err as Error).stack) + "\n");
    return toExitCode(e);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`icstudio: ${String(err?.stack ?? err)}\n`);
    process.exitCode = 1;
  },
);

/** IC_DEBUG, read while reporting an error: a bad setting must not hide the error being reported. */
function debugOn(): boolean {
  try {
    return config().debug;
  } catch {
    return false;
  }
}
