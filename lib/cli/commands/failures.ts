import "server-only";
import { defineCommand, log, printJson } from "../command";
import { z } from "zod";
import { episodeFilters, filterFlags } from "@/lib/trajectories/cli-filters";
import { DETECTORS } from "@/lib/failures/detectors";
import { FAILURE_GROUP_BYS, listFailureGroups } from "@/lib/failures/groups";
import { detectEpisodesByFilters } from "@/lib/failures/record";
import type { FailureGroup } from "@/lib/failures/view-types";

const top = (m: Record<string, number>, n = 3) =>
  Object.entries(m)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .slice(0, n)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");

function table(groups: FailureGroup[]): string {
  const head = ["group", "id", "episodes", "models", "policies"];
  const rows = groups.map((g) => ["detector" in g.key ? g.key.detector : g.key.cluster, g.id, String(g.episodes), top(g.byModel), top(g.byPolicy)]);
  const widths = head.map((h, i) => Math.min(70, Math.max(h.length, ...rows.map((r) => r[i].length))));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === 2 ? c.padStart(widths[i]) : c.slice(0, widths[i]).padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  return [line(head), ...rows.map(line)].join("\n");
}

/** `icstudio failures`: failing episodes grouped by what went wrong (detectors, or the last error's cluster). */
export default defineCommand({
  name: "failures",
  summary:
    "Failing episodes (ended, not solved) grouped by what went wrong: by failure detector, or by the cluster of their last error; with counts per model, policy and hardness.",
  flags: z.object({
    "group-by": z
      .enum(FAILURE_GROUP_BYS)
      .default("detector")
      .describe(
        `detector (an episode counts in each detector that fired on it, "none" if none did)\nor cluster (the environment and its last error message, normalised)`,
      )
      .meta({ value: "G" }),
    ...filterFlags.shape,
    detect: z
      .boolean()
      .default(false)
      .describe("first run the detectors again over the matching episodes (episodes stored before a detector existed or changed)"),
    json: z
      .boolean()
      .default(false)
      .describe(
        "{groupBy, failing, groups: [{id, key: {detector} or {cluster}, definition, episodes, byModel, byPolicy, byHardness, byEnvironment, examples}]}",
      ),
  }),
  help: `Group ids derive from the key alone: the same failure keeps its id across runs and stores.
Detectors: ${DETECTORS.map((d) => d.name).join(", ")} (docs/failure-detectors.md).`,
  async run({ values }) {
    const groupBy = values["group-by"];
    const filters = episodeFilters(values);
    if (values.detect) {
      const r = await detectEpisodesByFilters({ filters });
      log(`detectors ran over ${r.episodes} episode(s): ${r.tags} tag(s)`);
    }
    const result = await listFailureGroups({ filters, groupBy });
    if (values.json) printJson(result);
    else process.stdout.write((result.groups.length ? `${result.failing} failing episode(s)\n${table(result.groups)}` : "no failing episodes match") + "\n");
    return 0;
  },
});
