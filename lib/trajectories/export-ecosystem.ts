import "server-only";
import fs from "node:fs";
import path from "node:path";
import type { EpisodeFilters } from "@/lib/db/episode-filters";
import { iterateEpisodesWithTurns } from "@/lib/db/export-queries";
import { episodeToAtifTrial, trialName } from "./atif/write";
import { episodeToInspectSample, inspectHeader } from "./inspect/write";
import { ZipWriter } from "./inspect/zip";

/**
 * Exports for other tools: an Inspect `.eval` log (one sample per episode, written entry by entry)
 * and a Harbor job folder (one trial folder per episode). The file or folder appears whole or not
 * at all: it is written beside its destination and renamed at the end.
 */

type Skip = (e: { environment: string; dataset: string; taskId: string }) => boolean;

/** Writes the matching episodes as an Inspect eval log at `out`. */
export async function exportInspectLog({ filters = {}, out, skip }: { filters?: EpisodeFilters; out: string; skip?: Skip }): Promise<{ episodes: number }> {
  const tmp = `${out}.partial-${process.pid}`;
  const zip = new ZipWriter(tmp);
  try {
    const samples: { id: string | number; epoch: number; reward: number | null }[] = [];
    const summaries: unknown[] = [];
    const epochs = new Map<string, number>();
    const models = new Set<string>();
    const policies = new Set<string>();
    const usage: Record<string, { input_tokens: number; output_tokens: number; total_tokens: number }> = {};
    let started: Date | null = null;
    let finished: Date | null = null;
    for await (const e of iterateEpisodesWithTurns({ filters })) {
      if (skip?.(e)) continue;
      // Inspect's sample ids are unique within an epoch: a task played again is its next epoch. The
      // id names the sample's entry (samples/<id>_epoch_<n>.json, which the viewer looks up), so it
      // keeps to file-name characters; the task's own id travels in the sample's metadata.
      const id = `${e.dataset}-${e.taskId}`.replace(/[^A-Za-z0-9._-]+/g, "_");
      const epoch = (epochs.get(id) ?? 0) + 1;
      epochs.set(id, epoch);
      const model = e.model ?? (e.playerKind === "human" ? "human" : "none/none");
      models.add(model);
      if (e.policy) policies.add(e.policy);
      const { sample, summary } = episodeToInspectSample(e, id, epoch, model);
      zip.add(`samples/${id}_epoch_${epoch}.json`, JSON.stringify(sample));
      summaries.push(summary);
      samples.push({ id, epoch, reward: e.reward });
      const u = (usage[model] ??= { input_tokens: 0, output_tokens: 0, total_tokens: 0 });
      for (const t of e.turns) {
        u.input_tokens += t.tokensIn ?? 0;
        u.output_tokens += t.tokensOut ?? 0;
        u.total_tokens += (t.tokensIn ?? 0) + (t.tokensOut ?? 0);
      }
      if (!started || e.startedAt < started) started = e.startedAt;
      const end = e.endedAt ?? e.startedAt;
      if (!finished || end > finished) finished = end;
    }
    const now = new Date();
    const h = inspectHeader({
      model: models.size === 1 ? [...models][0] : models.size ? "icstudio/mixed" : "none/none",
      policy: policies.size === 1 ? [...policies][0] : policies.size ? [...policies].sort().join("+") : "icstudio",
      samples,
      created: now,
      started: started ?? now,
      finished: finished ?? now,
      usage,
    });
    zip.add("_journal/start.json", JSON.stringify(h.start));
    zip.add("summaries.json", JSON.stringify(summaries));
    zip.add("reductions.json", JSON.stringify(h.reductions));
    zip.add("header.json", JSON.stringify(h.header));
    zip.close();
    fs.renameSync(tmp, out);
    return { episodes: samples.length };
  } catch (err) {
    try {
      zip.close();
    } catch {}
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** Writes the matching episodes as Harbor trial folders under `dir` (a job folder). */
export async function exportAtifJob({ filters = {}, dir, skip }: { filters?: EpisodeFilters; dir: string; skip?: Skip }): Promise<{ episodes: number }> {
  if (fs.existsSync(dir) && fs.readdirSync(dir).length) throw Object.assign(new Error(`${dir} exists and is not empty`), { code: "EEXIST" });
  const tmp = `${dir.replace(/\/+$/, "")}.partial-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  let n = 0;
  try {
    for await (const e of iterateEpisodesWithTurns({ filters })) {
      if (skip?.(e)) continue;
      const t = episodeToAtifTrial(e);
      const trial = path.join(tmp, trialName(e));
      fs.mkdirSync(path.join(trial, "agent"), { recursive: true });
      fs.writeFileSync(path.join(trial, "agent", "trajectory.json"), JSON.stringify(t.trajectory, null, 2) + "\n");
      if (t.reward !== null) {
        fs.mkdirSync(path.join(trial, "verifier"), { recursive: true });
        fs.writeFileSync(path.join(trial, "verifier", "reward.txt"), `${t.reward}\n`);
      }
      fs.writeFileSync(path.join(trial, "result.json"), JSON.stringify(t.result, null, 2) + "\n");
      fs.writeFileSync(path.join(trial, "config.json"), JSON.stringify(t.config, null, 2) + "\n");
      n++;
    }
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(tmp, dir);
    return { episodes: n };
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}
