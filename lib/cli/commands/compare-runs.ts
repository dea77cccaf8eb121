import "server-only";
import { z } from "zod";
import { defineCommand, printJson } from "../command";
import { filterFlags, filtersFromSpec } from "@/lib/trajectories/cli-filters";
import { compareFilteredEpisodes, type FilterComparison } from "@/lib/runs/compare-filters";
import { BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, type PairedSummary } from "@/lib/stats/paired";

const pp = (x: number) => `${x > 0 ? "+" : ""}${(x * 100).toFixed(1)} pp`;

function line(label: string, s: PairedSummary): string {
  const ci = s.diffCI;
  const diff = ci ? `${pp(ci.diff)} [${pp(ci.low)}, ${pp(ci.high)}]` : "-";
  return `${label.padEnd(12)} ${String(s.tasks).padStart(6)} ${String(s.both).padStart(6)} ${String(s.onlyA).padStart(6)} ${String(s.onlyB).padStart(6)} ${String(s.neither).padStart(7)}  ${s.mcnemarP.toPrecision(3).padStart(9)}  ${diff}`;
}

function report(r: FilterComparison): string {
  const head = `${"group".padEnd(12)} ${"tasks".padStart(6)} ${"both".padStart(6)} ${"onlyA".padStart(6)} ${"onlyB".padStart(6)} ${"neither".padStart(7)}  ${"McNemar p".padStart(9)}  A - B [95% bootstrap interval]`;
  return [
    `${r.episodes.a} finished episodes match --a, ${r.episodes.b} match --b; ${r.tasks} tasks paired, ${r.unpaired} left out (one side only).`,
    head,
    line("all", r),
    ...r.groups.map((g) => line(g.group, g)),
  ].join("\n");
}

/** `icstudio compare-runs`: two filtered sets of episodes paired by task, with McNemar's exact test and a paired bootstrap interval. */
export default defineCommand({
  name: "compare-runs",
  summary:
    "Compare two sets of episodes task by task: solved by both, by one only, by neither; McNemar's exact test and a bootstrap interval of the difference in success rate.",
  flags: z.object({
    a: z
      .string({ error: "required: the first side's filter, e.g. --a model=gpt-4,policy=try-again,env=sql" })
      .describe("the first side: the list filters as key=value pairs, model=gpt-4,policy=try-again,env=sql")
      .meta({ value: "FILTER" }),
    b: z
      .string({ error: "required: the second side's filter, e.g. --b model=gpt-3.5,policy=try-again,env=sql" })
      .describe("the second side, the same way")
      .meta({ value: "FILTER" }),
    resamples: z.coerce.number().int().min(100).max(1_000_000).default(BOOTSTRAP_RESAMPLES).describe("bootstrap resamples"),
    seed: z.coerce
      .number()
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .default(BOOTSTRAP_SEED)
      .describe("the bootstrap's seed: the same episodes and seed give the same interval")
      .meta({ value: "S" }),
    json: z
      .boolean()
      .default(false)
      .describe("{both, onlyA, onlyB, neither, mcnemarP, diffCI: {diff, low, high, level, resamples, seed}, tasks, unpaired, episodes, groups}"),
  }),
  help: `Filter keys: ${Object.keys(filterFlags.shape).join(", ")}; a part without = adds a value to the key before it (env=sql,bash).
A task (environment, dataset, id) is paired when both sides have a finished episode of it (the latest when several).
mcnemarP: the exact two-sided test on onlyA vs onlyB (1 when both are 0). diffCI: the 95% percentile interval of
(success rate of A) - (success rate of B), resampling the paired tasks; null when no task is paired. Per group: Spider
hardness or bash file system.`,
  async run({ values: flags }) {
    const a = filtersFromSpec(flags.a, "--a");
    const b = filtersFromSpec(flags.b, "--b");
    const r = await compareFilteredEpisodes({ a, b, options: { resamples: flags.resamples, seed: flags.seed } });
    if (flags.json) {
      const { both, onlyA, onlyB, neither, mcnemarP, diffCI, ...rest } = r;
      printJson({ both, onlyA, onlyB, neither, mcnemarP, diffCI, ...rest });
    } else process.stdout.write(report(r) + "\n");
    return 0;
  },
});
