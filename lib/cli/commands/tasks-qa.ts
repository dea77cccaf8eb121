import "server-only";
import fs from "node:fs";
import { defineCommand, printJson } from "../command";
import { BadInputError } from "@/lib/errors";
import { z } from "zod";
import { episodeFilters, filterFlags } from "@/lib/trajectories/cli-filters";
import { goldCheckReportSchema, listTaskSuspects, taskSuspectsCsv } from "@/lib/failures/task-qa";

/** Reads a `gold-check --json` report, naming the flag and the file when it is not one. */
function readGoldCheck(file: string) {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw new BadInputError(`cannot read ${file} as JSON: ${(err as Error).message}`, "--gold-check");
  }
  const r = goldCheckReportSchema.safeParse(raw);
  if (!r.success) throw new BadInputError(`${file} is not a gold-check --json report: ${r.error.issues[0]?.message}`, "--gold-check");
  return r.data;
}

/** `icstudio tasks-qa`: tasks suspected of a broken gold or of reward hacking, with the evidence. */
export default defineCommand({
  name: "tasks-qa",
  summary:
    "Tasks suspected of a broken gold (its gold check fails; or two or more different models agree on an answer the gold does not give) or of reward hacking (a solved episode a reward-hacking detector fired on), with the evidence, for the dataset's maintainers.",
  flags: z.object({
    ...filterFlags.shape,
    "gold-check": z
      .string()
      .optional()
      .describe("a report of `icstudio gold-check --json` (one environment's dataset: give --env and --dataset)")
      .meta({ value: "REPORT.json" }),
    json: z
      .boolean()
      .default(false)
      .describe("{suspects: [{environment, dataset, taskId, kind, evidence, episodes: [{episodeId, model, policy, turn, detail}]}], counts}"),
    csv: z.boolean().default(false).describe("one row a suspect: environment, dataset, taskId, kind, evidence, episodes"),
  }),
  help: "kind: gold-check-failed | models-agree-against-gold | reward-hacking",
  async run({ values }) {
    if (values.json && values.csv) throw new BadInputError("give --json or --csv, not both", "--csv");
    const filters = episodeFilters(values);
    let goldCheck;
    if (values["gold-check"] !== undefined) {
      const env = filters.environment;
      const dataset = filters.dataset;
      if (!Array.isArray(env) || env.length !== 1) throw new BadInputError("name the one environment the gold-check report is of", "--env");
      if (!Array.isArray(dataset) || dataset.length !== 1) throw new BadInputError("name the one dataset the gold-check report is of", "--dataset");
      goldCheck = { report: readGoldCheck(values["gold-check"]), environment: env[0], dataset: dataset[0] };
    }
    const result = await listTaskSuspects({ filters, goldCheck });
    if (values.json) printJson(result);
    else if (values.csv) process.stdout.write(taskSuspectsCsv(result.suspects));
    else {
      const lines = result.suspects.map((s) => `${s.environment}/${s.dataset}#${s.taskId}  ${s.kind}  ${s.evidence}`);
      process.stdout.write((lines.length ? lines.join("\n") : "no suspect tasks") + "\n");
    }
    return 0;
  },
});
