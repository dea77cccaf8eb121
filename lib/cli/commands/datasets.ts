import { z } from "zod";
import { backendSchema, defineCommand, log, printJson } from "../command";
import { BadInputError } from "@/lib/errors";

/** `icstudio datasets`: lists task sets; `icstudio datasets fetch intercode` brings InterCode's. */
export default defineCommand({
  name: "datasets",
  summary: "List the task sets, or fetch InterCode's published task sets.",
  positionals: [
    { name: "fetch", help: "fetch a task set instead of listing them" },
    { name: "intercode", help: "the task set to fetch: InterCode's published sets" },
  ],
  flags: z.object({
    json: z.boolean().default(false).describe("print the list (fetch: the report) as JSON on stdout"),
    from: z
      .string()
      .optional()
      .describe("fetch: copy from a local directory laid out like InterCode's data/\n(e.g. ../shared/intercode) instead of downloading from GitHub")
      .meta({ value: "DIR" }),
    "check-gold": z
      .boolean()
      .default(false)
      .describe(
        "fetch: then check each NL2Bash gold ahead of its first use (two runs each:\na deterministic one is scored from the cache, any other runs at the score)",
      ),
    backend: backendSchema.optional().describe("--check-gold: the sandbox backend the golds run on (default auto)"),
  }),
  help: [
    "InterCode's sets are kept under var/datasets/intercode ($IC_DATA_DIR/datasets/intercode when set).",
    "A fetch verifies every file before replacing what is there, then converts the Spider databases.",
  ].join("\n"),
  async run({ values, positionals }) {
    const { listDatasets } = await import("@/lib/datasets/registry");
    if (positionals.length === 0) {
      for (const flag of ["from", "check-gold", "backend"] as const)
        if (values[flag] !== undefined && values[flag] !== false)
          throw new BadInputError(`--${flag} only applies to \`datasets fetch intercode\``, `--${flag}`);
      const list = listDatasets();
      if (values.json) {
        printJson(list.map(({ name, env, tasks, source, description }) => ({ name, env, tasks, source, description })));
        return 0;
      }
      const rows = [["name", "env", "tasks", "source"], ...list.map((d) => [d.name, d.env, String(d.tasks), d.source])];
      const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
      for (const r of rows)
        process.stdout.write(
          r
            .map((c, i) => c.padEnd(widths[i]!))
            .join("  ")
            .trimEnd() + "\n",
        );
      if (!list.some((d) => d.source === "intercode")) log("InterCode's task sets are not here yet: run `icstudio datasets fetch intercode`.");
      return 0;
    }
    if (positionals[0] !== "fetch") throw new BadInputError(`unknown subcommand ${JSON.stringify(positionals[0])} (expected fetch)`, "arguments");
    if (positionals[1] !== "intercode" || positionals.length > 2) throw new BadInputError("usage: icstudio datasets fetch intercode [--from DIR]", "arguments");
    if (values.backend !== undefined && !values["check-gold"]) throw new BadInputError("--backend only applies with --check-gold", "--backend");
    const backend = values.backend ?? "auto";
    const { fetchIntercode } = await import("@/lib/datasets/fetch");
    const converter = await import("@/lib/sql/convert-mysql-dump");
    const report = await fetchIntercode({ from: values.from, log, converter });
    const goldChecks: { dataset: string; cached: number; atScore: number }[] = [];
    if (values["check-gold"]) {
      const { loadDataset } = await import("@/lib/datasets/registry");
      const { checkBashGolds } = await import("@/lib/env/bash");
      for (const n of [1, 2, 3, 4]) {
        const dataset = `nl2bash-fs${n}`;
        const tasks = loadDataset(dataset).filter((t) => t.env === "bash");
        const counts = await checkBashGolds(tasks, { backend }, 2);
        log(`${dataset}: ${counts.cached} golds cached, ${counts.atScore} run at the score`);
        goldChecks.push({ dataset, ...counts });
      }
    }
    if (values.json) {
      printJson(values["check-gold"] ? { ...report, goldChecks } : report);
      return 0;
    }
    for (const f of report.files) process.stdout.write(`${f.rel}: ${f.bytes} bytes${f.tasks !== undefined ? `, ${f.tasks} tasks` : ""}\n`);
    process.stdout.write(`InterCode task sets are in ${report.dir}\n`);
    if (report.converted) process.stdout.write(`Spider databases converted: ${report.converted}\n`);
    return 0;
  },
});
