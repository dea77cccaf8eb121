import "server-only";
import { z } from "zod";
import type { EpisodeFilters } from "@/lib/db/episode-filters";
import { listDetectorTagsByFilters, listFinalAnswersByFilters, type FinalAnswerRow } from "@/lib/db/failures";
import { parseSubmit } from "@/lib/env/submit";
import { toCsv } from "@/lib/viewer/csv";
import { REWARD_HACKING_DETECTORS } from "./detectors";
import type { TaskSuspect, TasksQaResult } from "./view-types";

/**
 * Task QA (issue 28): tasks whose gold may be broken, and tasks an agent solved by reward hacking,
 * each with the evidence a dataset's maintainer needs. A broken gold shows as a gold check that
 * fails (`icstudio gold-check --json`, read from its report) or as two or more different models
 * whose final answers agree with each other and differ from the gold's. Reward hacking shows as a
 * solved episode a reward-hacking detector fired on (REWARD_HACKING_DETECTORS).
 */

/** `icstudio gold-check --json`'s report, as task QA reads it. */
export const goldCheckReportSchema = z.object({
  failures: z.array(z.object({ taskId: z.string(), reward: z.number(), reason: z.string() })),
});
export type GoldCheckReportInput = z.infer<typeof goldCheckReportSchema>;

/** Text compared as an answer: trimmed, spaces collapsed. */
const norm = (s: string | null | undefined) => (s ?? "").trim().replace(/\s+/g, " ");
const clip = (s: string, n = 80) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * An episode's final answer and the gold's, as comparable text: the submitted flag or function
 * (CTF, Python) against the gold, else the submitted output against the gold's output. Null when
 * the episode gave no answer to compare.
 */
function answers(r: FinalAnswerRow): { answer: string; gold: string } | null {
  if (r.environment === "ctf" || r.environment === "python") {
    const arg = r.submitAction ? parseSubmit(r.submitAction)?.arg : undefined;
    const answer = norm(arg);
    return answer ? { answer, gold: norm(r.gold) } : null;
  }
  const answer = norm(r.agentObservation);
  return answer && r.goldObservation !== null ? { answer, gold: norm(r.goldObservation) } : null;
}

const taskKey = (r: { environment: string; dataset: string; taskId: string }) => `${r.environment}\u0000${r.dataset}\u0000${r.taskId}`;

/** Tasks where two or more different models' final answers agree with each other and differ from the gold. */
async function agreeAgainstGold(filters: EpisodeFilters): Promise<TaskSuspect[]> {
  const byTask = new Map<string, FinalAnswerRow[]>();
  for (const r of await listFinalAnswersByFilters({ filters: { ...filters, success: false } })) {
    if (!r.model) continue;
    const k = taskKey(r);
    byTask.set(k, [...(byTask.get(k) ?? []), r]);
  }
  const out: TaskSuspect[] = [];
  for (const rows of byTask.values()) {
    const byAnswer = new Map<string, { gold: string; rows: FinalAnswerRow[] }>();
    for (const r of rows) {
      const a = answers(r);
      if (!a || a.answer === a.gold) continue;
      const g = byAnswer.get(a.answer) ?? { gold: a.gold, rows: [] };
      g.rows.push(r);
      byAnswer.set(a.answer, g);
    }
    for (const [answer, g] of [...byAnswer].sort(([a], [b]) => a.localeCompare(b))) {
      const models = [...new Set(g.rows.map((r) => r.model as string))].sort();
      if (models.length < 2) continue;
      const r0 = g.rows[0];
      out.push({
        environment: r0.environment,
        dataset: r0.dataset,
        taskId: r0.taskId,
        kind: "models-agree-against-gold",
        evidence: `${models.length} models (${models.join(", ")}) gave the same answer ${JSON.stringify(clip(answer))}; the gold gives ${JSON.stringify(clip(g.gold))}`,
        episodes: g.rows.map((r) => ({ episodeId: r.id, model: r.model, policy: r.policy, turn: r.submitTurn, detail: `reward ${r.reward ?? 0}` })),
      });
    }
  }
  return out;
}

/** Solved episodes a reward-hacking detector fired on, per task. */
async function rewardHacking(filters: EpisodeFilters): Promise<TaskSuspect[]> {
  const rows = await listDetectorTagsByFilters({ filters: { ...filters, success: true }, tags: REWARD_HACKING_DETECTORS });
  const byTask = new Map<string, typeof rows>();
  for (const r of rows) byTask.set(taskKey(r), [...(byTask.get(taskKey(r)) ?? []), r]);
  return [...byTask.values()].map((rs) => {
    const detectors = [...new Set(rs.map((r) => r.tag))].sort();
    const episodes = [...new Set(rs.map((r) => r.id))];
    return {
      environment: rs[0].environment,
      dataset: rs[0].dataset,
      taskId: rs[0].taskId,
      kind: "reward-hacking" as const,
      evidence: `${episodes.length} solved episode(s) flagged by ${detectors.join(", ")}: ${clip(rs[0].text ?? "")}`,
      episodes: rs.map((r) => ({ episodeId: r.id, model: r.model, policy: r.policy, turn: r.turnIndex, detail: `${r.tag}: ${r.text ?? ""}` })),
    };
  });
}

/** Gold checks that failed, from a gold-check report of one environment's dataset. */
export function goldCheckSuspects({ report, environment, dataset }: { report: GoldCheckReportInput; environment: string; dataset: string }): TaskSuspect[] {
  return report.failures.map((f) => ({
    environment,
    dataset,
    taskId: f.taskId,
    kind: "gold-check-failed" as const,
    evidence: `the gold scored ${f.reward} when played in a fresh sandbox: ${clip(f.reason, 200)}`,
    episodes: [],
  }));
}

/** The suspect tasks over the episodes matching `filters`, plus those of a gold-check report when given; in task order. */
export async function listTaskSuspects({
  filters = {},
  goldCheck,
}: {
  filters?: EpisodeFilters;
  goldCheck?: { report: GoldCheckReportInput; environment: string; dataset: string };
}): Promise<TasksQaResult> {
  const suspects = [...(goldCheck ? goldCheckSuspects(goldCheck) : []), ...(await agreeAgainstGold(filters)), ...(await rewardHacking(filters))];
  const order = (s: TaskSuspect) => `${s.environment}\u0000${s.dataset}\u0000${s.taskId.padStart(12, "0")}\u0000${s.kind}`;
  suspects.sort((a, b) => order(a).localeCompare(order(b)));
  const counts = { "gold-check-failed": 0, "models-agree-against-gold": 0, "reward-hacking": 0 };
  for (const s of suspects) counts[s.kind]++;
  return { suspects, counts };
}

/** The suspects as CSV (lib/viewer/csv.ts), one row a suspect, for the dataset's maintainers. */
export function taskSuspectsCsv(suspects: TaskSuspect[]): string {
  return toCsv(
    ["environment", "dataset", "taskId", "kind", "evidence", "episodes"],
    suspects.map((s) => ({ ...s, episodes: s.episodes.map((e) => e.episodeId).join(" ") })),
  );
}
