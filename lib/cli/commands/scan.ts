import "server-only";
import { z } from "zod";
import { defineCommand, log, parseFlags, printJson } from "../command";
import { ProgressBar } from "../progress";
import { BadInputError } from "@/lib/errors";
import { FILTER_HELP, FILTER_OPTIONS, filtersFromFlags } from "@/lib/trajectories/cli-filters";
import { scanQuestionSchema, scanTagSchema } from "@/lib/scan/scan-prompt";
import { SCAN_DEFAULT_CONCURRENCY, SCAN_DEFAULT_EPISODES, SCAN_MAX_CONCURRENCY, SCAN_MAX_EPISODES } from "@/lib/scan/scan-options";

const flagsSchema = z.object({
  question: scanQuestionSchema,
  "answer-tag": scanTagSchema,
  model: z.string().min(1, { message: "a model id is required (see `icstudio models`)" }).optional(),
  "base-url": z.string().url().optional(),
  "api-key": z.string().optional(),
  limit: z.coerce.number().int().min(1).max(SCAN_MAX_EPISODES).default(SCAN_DEFAULT_EPISODES),
  concurrency: z.coerce.number().int().min(1).max(SCAN_MAX_CONCURRENCY).default(SCAN_DEFAULT_CONCURRENCY),
  json: z.boolean().optional(),
});

/** `icstudio scan`: a question in words put to a model about each episode of a filtered set; the answers become machine tags. */
export default defineCommand({
  name: "scan",
  summary: "Ask a model a yes/no question about each episode the filters match; store the answers as machine tags (source scanner) with the model, prompt and time.",
  usage: 'scan --question "Did the agent give up early?" --answer-tag gave-up-early --model M [filters, --episode-model M] [--limit N] [--concurrency N] [--json]',
  help: `  --question TEXT  the question, answered yes or no per episode
  --answer-tag T   the answers' tag: T where the model said yes, T:no, T:error (a failed call or no yes/no);
                   use a tag people use, so the report can check the scanner against them (--tag filters episodes)
  --model ID       a model from models.config.json or the models page (\`icstudio models\`); with --base-url, the name to request
  --base-url URL   an OpenAI-compatible endpoint without editing the config; --api-key KEY its key
  --limit N        the newest N episodes that match (default ${SCAN_DEFAULT_EPISODES}, at most ${SCAN_MAX_EPISODES})
  --concurrency N  model calls at once (default ${SCAN_DEFAULT_CONCURRENCY}, at most ${SCAN_MAX_CONCURRENCY}); progress goes to stderr
${FILTER_HELP}
  (--model is the scanner's model: filter the episodes by theirs with --episode-model M)
  --json           {scanId, tag, model, question, prompt, at, total, done, yes, no, errors, answers: [{episodeId, answer, text}], agreement}
agreement: against the episodes people tagged (lib/scan/scans.ts): precision, recall and Cohen's kappa, or null when none.`,
  options: {
    ...FILTER_OPTIONS,
    question: { type: "string" },
    "answer-tag": { type: "string" },
    "episode-model": { type: "string" },
    model: { type: "string" },
    "base-url": { type: "string" },
    "api-key": { type: "string" },
    limit: { type: "string" },
    concurrency: { type: "string" },
    json: { type: "boolean" },
  },
  async run({ values }) {
    const f = parseFlags(flagsSchema, values);
    // --model names the scanner's model here; the episodes' model filter is --episode-model.
    const filters = filtersFromFlags({ ...values, model: values["episode-model"] });
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
