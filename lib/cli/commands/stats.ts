import "server-only";
import { defineCommand, printJson } from "../command";
import { FILTER_HELP, FILTER_OPTIONS, filtersFromFlags } from "@/lib/trajectories/cli-filters";
import { computeStats, parseGroupBy, type StatsGroup } from "@/lib/stats/measures";

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
  const line = (r: string[]) => r.map((c, i) => (i < dims.length || i === r.length - 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ").trimEnd();
  return [line(head), ...rows.map(line)].join("\n");
}

/** `icstudio stats`: the InterCode paper's measures over the stored episodes. */
export default defineCommand({
  name: "stats",
  summary: "The InterCode paper's statistics (success rate, mean reward, mean turns, error rate, success within k turns) per group.",
  usage: "stats [--group-by env,dataset,model,policy,hardness,actor] [filters] [--json]",
  help: `  --group-by DIMS  any of env, dataset, model, policy, hardness, actor, annotator, turnLimit, run, status, task
                   (default env,dataset,actor,model,policy)
${FILTER_HELP}
  --json           {groups: [{key, episodes, solved, successRate, meanReward, meanTurns, errorRate, successAtK}]}
Rates are fractions in --json and percentages in the table. Unfinished episodes are left out unless --status asks.`,
  options: { ...FILTER_OPTIONS, "group-by": { type: "string" }, json: { type: "boolean" } },
  async run({ values }) {
    const groupBy = parseGroupBy(values["group-by"] as string | undefined);
    const result = await computeStats({ filters: filtersFromFlags(values), groupBy });
    if (values.json) printJson(result);
    else process.stdout.write((result.groups.length ? table(result.groups, groupBy) : "no episodes match") + "\n");
    return 0;
  },
});
