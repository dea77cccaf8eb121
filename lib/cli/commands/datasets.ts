import { defineCommand, log, printJson } from "../command";
import { BadInputError } from "@/lib/errors";

/** `icstudio datasets`: lists task sets; `icstudio datasets fetch intercode` brings InterCode's. */
export default defineCommand({
  name: "datasets",
  summary: "List the task sets, or fetch InterCode's published task sets.",
  usage: "datasets [--json]\n       icstudio datasets fetch intercode [--from DIR]",
  help: [
    "  --json        print the list as JSON on stdout",
    "  --from DIR    fetch: copy from a local directory laid out like InterCode's data/",
    "                (e.g. ../shared/intercode) instead of downloading from GitHub",
    "",
    "InterCode's sets are kept under var/datasets/intercode ($IC_DATA_DIR/datasets/intercode when set).",
    "A fetch verifies every file before replacing what is there, then converts the Spider databases.",
  ].join("\n"),
  options: { json: { type: "boolean" }, from: { type: "string" } },
  allowPositionals: true,
  async run({ values, positionals }) {
    const { listDatasets } = await import("@/lib/datasets/registry");
    if (positionals.length === 0) {
      if (values.from) throw new BadInputError("--from only applies to `datasets fetch intercode`", "--from");
      const list = listDatasets();
      if (values.json) {
        printJson(list.map(({ name, env, tasks, source, description }) => ({ name, env, tasks, source, description })));
        return 0;
      }
      const rows = [["name", "env", "tasks", "source"], ...list.map((d) => [d.name, d.env, String(d.tasks), d.source])];
      const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
      for (const r of rows) process.stdout.write(r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd() + "\n");
      if (!list.some((d) => d.source === "intercode")) log("InterCode's task sets are not here yet: run `icstudio datasets fetch intercode`.");
      return 0;
    }
    if (positionals[0] !== "fetch") throw new BadInputError(`unknown subcommand ${JSON.stringify(positionals[0])} (expected fetch)`, "arguments");
    if (positionals[1] !== "intercode" || positionals.length > 2) throw new BadInputError("usage: icstudio datasets fetch intercode [--from DIR]", "arguments");
    const { fetchIntercode } = await import("@/lib/datasets/fetch");
    const converter = await import("@/lib/sql/convert-mysql-dump");
    const report = await fetchIntercode({ from: values.from as string | undefined, log, converter });
    if (values.json) {
      printJson(report);
      return 0;
    }
    for (const f of report.files) process.stdout.write(`${f.rel}: ${f.bytes} bytes${f.tasks !== undefined ? `, ${f.tasks} tasks` : ""}\n`);
    process.stdout.write(`InterCode task sets are in ${report.dir}\n`);
    if (report.converted) process.stdout.write(`Spider databases converted: ${report.converted}\n`);
    return 0;
  },
});
