import "server-only";
import { z } from "zod";
import { defineCommand, log, printJson } from "../command";
import { ProgressBar } from "../progress";
import { BadInputError } from "@/lib/errors";
import { episodeFilters, filterFlags } from "@/lib/trajectories/cli-filters";
import { scanQuestionSchema, scanTagSchema } from "@/lib/scan/scan-prompt";
import { SCAN_DEFAULT_CONCURRENCY, SCAN_DEFAULT_EPISODES, SCAN_MAX_CONCURRENCY, SCAN_MAX_EPISODES } from "@/lib/scan/scan-options";

/** `icstudio scan`: a question in words put to a model about each episode of a filtered set; the answers become machine tags. */
export default defineCommand({
  name: "scan",
  summary:
    "Ask a model a yes/no question about each episode the filters match; store the answers as machine tags (source scanner) with the model, prompt and time.",
  flags: z.object({
    question: scanQuestionSchema.describe('the question, answered yes or no per episode ("Did the agent give up early?")').meta({ value: "TEXT" }),
    "answer-tag": scanTagSchema
      .describe(
        "the answers' tag: T where the model said yes, T:no, T:error (a failed call or no yes/no);\n" +
          "use a tag people use, so the report can check the scanner against them (--tag filters episodes)",
      )
      .meta({ value: "T" }),
    model: z
      .string()
      .min(1, { message: "a model id is required (see `icstudio models`)" })
      .optional()
      .describe("the scanner's model: one from models.config.json or the models page (`icstudio models`); with --base-url, the name to request")
      .meta({ value: "ID" }),
    "base-url": z.string().url().optional().describe("an OpenAI-compatible endpoint without editing the config").meta({ value: "URL" }),
    "api-key": z.string().optional().describe("its key").meta({ value: "KEY" }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(SCAN_MAX_EPISODES)
      .default(SCAN_DEFAULT_EPISODES)
      .describe(`the newest N episodes that match, at most ${SCAN_MAX_EPISODES}`),
    concurrency: z.coerce
      .number()
      .int()
      .min(1)
      .max(SCAN_MAX_CONCURRENCY)
      .default(SCAN_DEFAULT_CONCURRENCY)
      .describe(`model calls at once, at most ${SCAN_MAX_CONCURRENCY}; progress goes to stderr`),
    ...filterFlags.omit({ model: true }).shape,
    // --model names the scanner's model here; the episodes' model filter is --episode-model.
    "episode-model": filterFlags.shape.model,
    json: z
      .boolean()
      .default(false)
      .describe("{scanId, tag, model, question, prompt, at, total, done, yes, no, errors, answers: [{episodeId, answer, text}], agreement}"),
  }),
  help: "agreement: against the episodes people tagged (lib/scan/scans.ts): precision, recall and Cohen's kappa, or null when none.",
  async run({ values: f }) {
    const filters = episodeFilters({ ...f, model: f["episode-model"] });
    if (f["api-key"] && !f["base-url"]) throw new BadInputError("--api-key needs --base-url", "--api-key");
    const { resolveModel } = await import("@/lib/agent/models");
    const { runScan } = await import("@/lib/scan/run-scan");
    const { getScanById } = await import("@/lib/scan/scans");
    const model = resolveModel(f.model, f["base-url"] ? { adhoc: { baseURL: f["base-url"], apiKey: f["api-key"], model: f.model } } : {});
    const bar = new ProgressBar("scan", 0);
    const result = await runScan({
      question: f.question,
      tag: f["answer-tag"],
      model,
      filters,
      limit: f.limit,
      concurrency: f.concurrency,
      onProgress: (p) => {
        bar.setTotal(p.total);
        bar.update(p.done, `yes ${p.yes} · no ${p.no} · errors ${p.errors}`);
      },
    });
    const scan = await getScanById({ scanId: result.scanId });
    const agreement = scan?.agreement ?? null;
    if (f.json) printJson({ ...result, agreement });
    else {
      log("");
      process.stdout.write(
        [
          `scan ${result.scanId}: ${result.total} episodes, yes ${result.yes}, no ${result.no}, errors ${result.errors} (tag ${result.tag}, model ${result.model})`,
          agreement
            ? `agreement with people on ${agreement.episodes} episodes they tagged: precision ${agreement.precision?.toFixed(3) ?? "-"}, recall ${agreement.recall?.toFixed(3) ?? "-"}, kappa ${agreement.kappa?.toFixed(3) ?? "-"}`
            : "no episode of this scan was tagged by a person: its answers are unchecked",
        ].join("\n") + "\n",
      );
    }
    return 0;
  },
});
