import "server-only";
import { defineCommand, printJson } from "../command";
import { z } from "zod";
import { episodeFilters, filterFlags } from "@/lib/trajectories/cli-filters";
import { STATS_DIMENSIONS } from "@/lib/db/stats-dimensions";
import { computeStats, DEFAULT_GROUP_BY, parseGroupBy, type StatsGroup } from "@/lib/stats/measures";

const pct = (x: number | null) => (x === null ? "-" : `${(x * 100).toFixed(2)}%`);

function table(groups: StatsGroup[], dims: string[]): string {
  const head = [...dims, "episodes", "solved", "success", "reward", "turns", "errors", "success@k (k=1..)"];
  const rows = groups.map((g) => [
    ...dims.map((d) => String(g.key[d as keyof StatsGroup["key"]] ?? "-")),
    String(g.episodes),
    String(g.solved),
    pct(g.successRate),
    g.meanReward.toFixed(3),
    g.meanTurns.toFixed(2),
    pct(g.errorRate),
    g.successAtK.map((x) => (x * 100).toFixed(0)).join(" "),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i < dims.length || i === r.length - 1 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)].join("\n");
}

/** `icstudio stats`: the InterCode paper's measures over the stored episodes. */
export default defineCommand({
  name: "stats",
  summary: "The InterCode paper's statistics (success rate, mean reward, mean turns, error rate, success within k turns) per group.",
  flags: z.object({
    "group-by": z
      .string()
      .default(DEFAULT_GROUP_BY.join(","))
      .describe(`any of ${Object.keys(STATS_DIMENSIONS).join(", ")}`)
      .meta({ value: "DIMS" }),
    ...filterFlags.shape,
    json: z.boolean().default(false).describe("{groups: [{key, episodes, solved, successRate, meanReward, meanTurns, errorRate, successAtK}]}"),
  }),
  help: "Rates are fractions in --json and percentages in the table. Unfinished episodes are left out unless --status asks.",
  async run({ values }) {
    const groupBy = parseGroupBy(values["group-by"]);
    const result = await computeStats({ filters: episodeFilters(values), groupBy });
    if (values.json) printJson(result);
    else process.stdout.write((result.groups.length ? table(result.groups, groupBy) : "no episodes match") + "\n");
    return 0;
  },
});
