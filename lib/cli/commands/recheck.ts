import "server-only";
import fs from "node:fs";
import { z } from "zod";
import { backendSchema, defineCommand, log, printJson } from "../command";
import { getReplayDataById } from "@/lib/db/viewer-queries";
import { loadDataset } from "@/lib/datasets/registry";
import type { Task } from "@/lib/datasets/types";
import { BadInputError } from "@/lib/errors";
import { parseLogText } from "@/lib/trajectories/parse-log";
import { taskOfLog } from "@/lib/trajectories/task-links";
import { fidelityOf } from "@/lib/env/fidelity";
import { profileNameSchema, type ProfileName } from "@/lib/env/profiles";
import type { Environment } from "@/lib/env/types";
import { createViewerEnvironment, replayLoopForEpisode, taskForEpisode } from "@/lib/replay/episode-task";
import { checkEpisodeReplay, summarizeChecks, type RecordedTurn, type ReplayLoop } from "@/lib/replay/replay-check";
import type { DisagreementCategory, EpisodeCheck } from "@/lib/viewer/view-types";

/** One file's (or the stored episodes') agreement, as `--json` prints it. */
export interface RecheckFileReport {
  file: string;
  episodes: number;
  turns: number;
  /** Share of turns whose replayed observation equals the recorded one. */
  observationAgree: number | null;
  /** Share of compared rewards that agree (within 0.01). */
  rewardAgree: number | null;
  rewardCompared: number;
  /** Episodes whose task's query differs from the logged one (a sign the index points elsewhere). */
  queryMismatch: number;
  /** Episodes whose replay failed part-way (their checked turns still count). */
  errors: number;
  skipped: number;
  /** Disagreeing turns by category. */
  categories: Partial<Record<DisagreementCategory, number>>;
}

/** One environment's agreement over every file checked. */
export interface RecheckEnvReport {
  env: string;
  episodes: number;
  turns: number;
  observationAgree: number | null;
  rewardAgree: number | null;
  rewardCompared: number;
  categories: Partial<Record<DisagreementCategory, number>>;
}

/** A turn whose replay differs from the recording, as `--json` lists it. */
export interface RecheckDisagreement {
  file: string;
  /** The episode: "task <index>" for a log file, "episode <id>" for a stored one. */
  episode: string;
  turn: number;
  category: DisagreementCategory;
  /** With "the log's environment differed": the logged table, column or value the task's environment lacks. */
  evidence?: string;
  recorded: { observation: string; reward: number | null };
  replayed: { observation: string; reward: number | null };
}

type Job = { label: string; task: Task; turns: RecordedTurn[]; finalReward: number | null; queryMismatch: boolean; loop: ReplayLoop };

/** `icstudio recheck`: replays recorded actions in fresh sandboxes and reports how many turns agree. */
export default defineCommand({
  name: "recheck",
  summary:
    "Replay recorded episodes (stored episode ids or InterCode log files) in fresh sandboxes and report the share of turns whose observation and reward agree.",
  positionals: [{ name: "episode ids or log files", help: "stored episodes' ids (IC_DB) or InterCode log files", required: true, variadic: true }],
  flags: z.object({
    dataset: z.string().optional().describe("dataset of the log files' tasks (nl2bash-fs4, spider-dev, mbpp, ...); required for files").meta({ value: "NAME" }),
    profile: profileNameSchema.optional().describe("replay every episode under this profile instead"),
    backend: backendSchema.optional().describe("sandbox backend (default IC_SANDBOX, else auto)"),
    limit: z.coerce.number().int().min(1).optional().describe("check at most N episodes per file"),
    json: z
      .boolean()
      .default(false)
      .describe(
        "print {files: [{file, episodes, turns, observationAgree, rewardAgree, categories, ...}],\n" +
          "environments: [...the same per environment], disagreements: [{file, episode, turn,\n" +
          "category, evidence?, recorded: {observation, reward}, replayed: {observation, reward}}]} (fractions)",
      ),
  }),
  help: `Log files (InterCode results files and environment logs, or JSONL) are read without importing them;
each logged episode's task is found in the dataset named by --dataset by its log format's id rule,
as the import links it (a position in the task file, or CTF's own task_id). Episode ids are read from the store (IC_DB) and use their own dataset.
Each episode is replayed with the loop that recorded it (its policy's action format, when it was
scored, the observations the loop rewrote) under a profile (docs/profiles.md): InterCode's logs,
and episodes imported from them, under intercode; the Studio's own episodes under studio.`,
  async run({ values, positionals }) {
    const { backend, profile, dataset } = values;
    const limit = values.limit ?? Infinity;
    const groups: { file: string; jobs: Job[]; skipped: number }[] = [];
    const ids: string[] = [];
    for (const p of positionals) {
      if (fs.existsSync(p) && fs.statSync(p).isFile()) groups.push(jobsFromFile(p, dataset, limit, profile));
      else ids.push(p);
    }
    if (ids.length) groups.push(await jobsFromStore(ids, profile));
    const files: RecheckFileReport[] = [];
    const byEnv = new Map<string, EpisodeCheck[]>();
    const disagreements: RecheckDisagreement[] = [];
    for (const g of groups) {
      const checks: EpisodeCheck[] = [];
      let mismatch = 0;
      // Under `bash.between-episodes` = git-reset-same-sandbox a file's bash episodes run one after
      // another in one environment (its reset keeps the sandbox and resets it with git), as
      // InterCode's containers lived across a log's tasks; otherwise each gets its own.
      let shared = null as { key: string; env: Environment } | null;
      for (const [i, job] of g.jobs.entries()) {
        if (job.queryMismatch) mismatch++;
        const share = fidelityOf(job.task).sharesSandboxAcrossEpisodes(job.loop.profile);
        const key = `${job.task.env}\0${job.loop.profile}`;
        if (shared && (!share || shared.key !== key)) {
          await shared.env.close().catch(() => undefined);
          shared = null;
        }
        const env: Environment = shared?.env ?? (await createViewerEnvironment(job.task.env, backend, job.loop.profile));
        if (share) shared = { key, env };
        const c = await checkEpisodeReplay({ task: job.task, turns: job.turns, finalReward: job.finalReward, env, loop: job.loop, keepOpen: share });
        if (c.error) log(`${g.file}: ${job.label}: replay stopped: ${c.error}`);
        checks.push(c);
        byEnv.set(job.task.env, [...(byEnv.get(job.task.env) ?? []), c]);
        for (const t of c.turns) {
          if (!t.category || t.forcedSubmit) continue;
          disagreements.push({
            file: g.file,
            episode: job.label,
            turn: t.index,
            category: t.category,
            ...(t.evidence ? { evidence: t.evidence } : {}),
            recorded: { observation: t.recordedObservation ?? "", reward: t.recordedReward },
            replayed: { observation: t.replayedObservation, reward: t.replayedReward },
          });
        }
        if (!values.json && process.stderr.isTTY) process.stderr.write(`\r${g.file}: ${i + 1}/${g.jobs.length}`);
      }
      await shared?.env.close().catch(() => undefined);
      if (!values.json && process.stderr.isTTY) process.stderr.write("\n");
      const s = summarizeChecks(checks);
      files.push({
        file: g.file,
        episodes: s.episodes,
        turns: s.turns,
        observationAgree: s.observationAgree,
        rewardAgree: s.rewardAgree,
        rewardCompared: s.rewardCompared,
        queryMismatch: mismatch,
        errors: s.errors,
        skipped: g.skipped,
        categories: countCategories(checks),
      });
    }
    const environments: RecheckEnvReport[] = [...byEnv].map(([env, checks]) => {
      const s = summarizeChecks(checks);
      return {
        env,
        episodes: s.episodes,
        turns: s.turns,
        observationAgree: s.observationAgree,
        rewardAgree: s.rewardAgree,
        rewardCompared: s.rewardCompared,
        categories: countCategories(checks),
      };
    });
    if (values.json) printJson({ files, environments, disagreements });
    else {
      const pct = (v: number | null) => (v === null ? "n/a" : `${(v * 100).toFixed(1)}%`);
      const cats = (c: RecheckFileReport["categories"]) => {
        const parts = Object.entries(c).map(([k, v]) => `${k} ${v}`);
        return parts.length ? `; disagreeing turns: ${parts.join(", ")}` : "";
      };
      for (const f of files) {
        console.log(
          `${f.file}: ${f.episodes} episodes, ${f.turns} turns: observation agrees ${pct(f.observationAgree)}, reward agrees ${pct(f.rewardAgree)} (of ${f.rewardCompared})` +
            (f.queryMismatch ? `, ${f.queryMismatch} task queries differ` : "") +
            (f.errors ? `, ${f.errors} replays stopped` : "") +
            (f.skipped ? `, ${f.skipped} skipped` : "") +
            cats(f.categories),
        );
      }
      for (const e of environments) {
        console.log(
          `${e.env} (all files): ${e.episodes} episodes, ${e.turns} turns: observation agrees ${pct(e.observationAgree)}, reward agrees ${pct(e.rewardAgree)} (of ${e.rewardCompared})${cats(e.categories)}`,
        );
      }
    }
    return 0;
  },
});

function countCategories(checks: EpisodeCheck[]): Partial<Record<DisagreementCategory, number>> {
  const out: Partial<Record<DisagreementCategory, number>> = {};
  for (const c of checks) for (const t of c.turns) if (t.category && !t.forcedSubmit) out[t.category] = (out[t.category] ?? 0) + 1;
  return out;
}

function jobsFromFile(
  file: string,
  dataset: string | undefined,
  limit: number,
  profile: ProfileName | undefined,
): { file: string; jobs: Job[]; skipped: number } {
  if (!dataset) throw new BadInputError("give the dataset of the log's tasks (e.g. --dataset nl2bash-fs4)", "--dataset");
  loadDataset(dataset); // an unknown or unfetched dataset is refused here, naming it
  const parsed = parseLogText(file, fs.readFileSync(file, "utf8"), { dataset });
  if (parsed.error) throw new BadInputError(parsed.error, file);
  const jobs: Job[] = [];
  let skipped = parsed.rejected.length;
  for (const e of parsed.episodes) {
    if (jobs.length >= limit) {
      skipped++;
      continue;
    }
    // The log's task by its format's id rule, as the import links it (lib/trajectories/task-links.ts).
    const link = taskOfLog(parsed.format, { ...e, dataset: e.dataset ?? dataset });
    if (!link) {
      log(`${file}: episode of task ${e.taskId}: no such task in ${dataset}; skipped`);
      skipped++;
      continue;
    }
    const task = link.task;
    jobs.push({
      label: `task ${e.taskIndex ?? e.taskId}`,
      task,
      turns: e.turns.map((t) => ({ index: t.index, action: t.action, observation: t.observation, reward: t.reward ?? null })),
      finalReward: e.reward ?? null,
      queryMismatch: link.textDiffers,
      loop: { profile: profile ?? "intercode", policy: e.policy ?? null, turnLimit: e.turnLimit },
    });
  }
  return { file, jobs, skipped };
}

async function jobsFromStore(ids: string[], profile: ProfileName | undefined): Promise<{ file: string; jobs: Job[]; skipped: number }> {
  const jobs: Job[] = [];
  let skipped = 0;
  for (const id of ids) {
    const d = await getReplayDataById({ id });
    if (!d) {
      log(`episode ${id}: not in the store (nor a file); skipped`);
      skipped++;
      continue;
    }
    const task = taskForEpisode(d.episode);
    jobs.push({
      label: `episode ${id}`,
      task,
      turns: d.turns.map((t) => ({ index: t.index, action: t.action, observation: t.observation, reward: t.reward })),
      finalReward: d.episode.reward,
      queryMismatch: task.query.trim() !== d.episode.query.trim(),
      loop: { ...replayLoopForEpisode(d.episode), ...(profile ? { profile } : {}) },
    });
  }
  return { file: "(stored episodes)", jobs, skipped };
}
