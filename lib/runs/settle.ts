import "server-only";
import type { EpisodeOutcome } from "@/lib/episodes/agent-event";
import type { RunCounts, RunStore, RunSummary } from "./run-eval";

/**
 * How episodes settle into their run: the one rule for a Run row's counts and status, whether the
 * episodes play in this process (runEval: `icstudio eval`, the runs page) or on a queue's workers
 * (lib/runs/queue). The row's counts are progress (the runs page and `--watch` read them while the
 * run goes on); when the run ends they are set again from its stored episodes, so a count lost to
 * a crash does not outlive the run.
 */

/**
 * Before the first episode: the run's size, and counts starting from what an earlier attempt of the
 * same run finished (a resumed run never shows fewer solved than it had).
 */
export async function openRunCounts(store: RunStore, run: { id: string; name: string; total: number; finished: number }): Promise<RunCounts> {
  const before = run.finished ? await store.summarizeRun(run.id, run.name) : null;
  const counts = { done: run.finished, solved: before?.solved ?? 0, errors: before?.providerErrors ?? 0 };
  await store.updateRun(run.id, { total: run.total, ...counts });
  return counts;
}

/**
 * An episode of the run ended: it adds to the run's counts unless it was interrupted (its task is
 * played again, by this process on resume or by another worker). Returns the run's counts after
 * it, or null when it does not count. The store adds it atomically, so episodes settling at once
 * (concurrent episodes, several workers) all count.
 */
export async function settleEpisode(store: RunStore, runId: string, outcome: Pick<EpisodeOutcome, "status" | "success">): Promise<RunCounts | null> {
  if (outcome.status === "interrupted") return null;
  return store.addEpisode(runId, { solved: outcome.success, errored: outcome.status === "error" });
}

/**
 * The run is over: its counts from its stored episodes (one per task), and its status, which
 * `statusOf` decides from them. Returns the summary the counts came from.
 */
export async function closeRun(
  store: RunStore,
  run: { id: string; name: string },
  statusOf: (summary: RunSummary) => "done" | "failed" | "cancelled",
): Promise<RunSummary> {
  const summary = await store.summarizeRun(run.id, run.name);
  await store.updateRun(run.id, { status: statusOf(summary), done: summary.episodes, solved: summary.solved, errors: summary.providerErrors });
  return summary;
}

/** The run cannot go on (the store or the queue failed under it): marked failed, best effort, as the error that ended it propagates. */
export async function failRun(store: RunStore, runId: string): Promise<void> {
  await store.updateRun(runId, { status: "failed" }).catch(() => {});
}
