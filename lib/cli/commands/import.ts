import "server-only";
import { z } from "zod";
import { defineCommand, log, printJson } from "../command";
import { ProgressBar } from "../progress";
import { importPaths } from "@/lib/trajectories/import-paths";

/** `icstudio import`: InterCode logs (results files, environment logs) and the project's JSONL. */
export default defineCommand({
  name: "import",
  summary:
    "Import trajectory logs (InterCode results files, environment logs and {meta, logs} run files, this project's JSONL, Inspect AI eval logs, Harbor ATIF trajectories) into the store.",
  positionals: [{ name: "files or folders", help: "the logs to import, and folders to search for them", required: true, variadic: true }],
  flags: z.object({
    model: z.string().optional().describe("the model that played (`human` for people)").meta({ value: "M" }),
    policy: z.string().optional().describe("try-again | react | plan-solve | plan-solve-refine-3 | single-turn | try-again-handicap").meta({ value: "P" }),
    turns: z.coerce.number().int().min(1).optional().describe("the turn limit"),
    dataset: z.string().optional().describe("the dataset name (e.g. nl2bash-fs2, spider-dev, mbpp)").meta({ value: "D" }),
    json: z.boolean().default(false).describe("print the report as JSON"),
  }),
  help: `Folders are searched for .json, .jsonl and .eval files. Inspect AI logs (.eval, .json): one
episode per sample. Harbor ATIF: a trajectory.json, a trial folder (agent/trajectory.json with
verifier/reward.txt or reward.json and result.json), or a folder of trials (one run); a trial with
no reward file is imported unscored and flagged. Model, policy, turn limit and dataset are read
from InterCode's file names (ic_sql_multiturn_gpt-4_10_turns.json, ..._fs_4.json) and from a run
file's meta (Plan & Solve: plan-solve, plan-solve-refine-N) unless given.
Episodes are stored as logged; what is odd about one (a reward below 0, a blocked last action with
no observation, ReAct's forced final submit, ...) is flagged on it and counted per file
(\`icstudio stats --flag F\` selects them). Importing the same file again stores nothing new. A
damaged file or record is reported and the rest goes on; the exit status is 0 when every file was
read, 1 when some records or files were rejected.
Database: IC_DB (default ./var/studio.db).`,
  async run({ values, positionals }) {
    let bar: ProgressBar | undefined;
    let added = 0;
    let rejected = 0;
    const report = await importPaths(positionals, {
      model: values.model,
      policy: values.policy,
      dataset: values.dataset,
      turnLimit: values.turns,
      onProgress: (file, done, total) => {
        // A large Inspect .eval: how far through it the reading is, in MB.
        if (!process.stderr.isTTY || total < 16 * 1024 * 1024) return;
        bar ??= new ProgressBar("import", 1);
        bar.update(0, `${file}: ${Math.round(done / 1048576)} / ${Math.round(total / 1048576)} MB`);
      },
      onFile: (f, done, total) => {
        added += f.added;
        rejected += f.rejected.length + (f.error ? 1 : 0);
        if (process.stderr.isTTY) {
          bar ??= new ProgressBar("import", total);
          bar.update(done, `added ${added} · rejected ${rejected}`);
        }
      },
    });
    if (values.json) printJson(report);
    else {
      const flagList = (flags: Record<string, number>) =>
        Object.entries(flags)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, n]) => `${k} ${n}`)
          .join(", ");
      for (const f of report.files) {
        if (f.error) log(`${f.file}: not imported: ${f.error}`);
        for (const r of f.rejected) log(`${r.file}: record ${r.record} (#${r.index}): ${r.reason}`);
        if (f.flagged) process.stdout.write(`${f.file}: ${f.episodes} episodes, ${f.flagged} flagged (${flagList(f.flags)})\n`);
      }
      const t = report.totals;
      process.stdout.write(
        `files ${t.files} (${t.failedFiles} not readable) · episodes added ${t.added} · skipped ${t.skipped} (already stored) · rejected ${t.rejected} · flagged ${t.flagged}${t.flagged ? ` (${flagList(t.flags)})` : ""}\n`,
      );
    }
    return report.totals.failedFiles || report.totals.rejected ? 1 : 0;
  },
});
