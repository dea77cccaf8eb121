/**
 * `npm run bench -- recording`: what recording a person's session costs. The browser side
 * (EpisodeRecorder.push per keystroke, against a bare array push), storing one chunk (the
 * websocket handler's write: a transaction with the cap's totals, against a bare better-sqlite3
 * insert on the same file), and the asciicast v2 of an episode at the default cap.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { stats } from "./env";

function medianOf(runs: number, fn: () => number): number {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) out.push(fn());
  return stats(out).median;
}

export default async function recordingBench(): Promise<number> {
  const { EpisodeRecorder } = await import("@/components/play/recorder");
  const { DEFAULT_RECORDING_MAX_BYTES, toAsciicast } = await import("@/lib/recording/events");
  const N = 100_000;
  let sent = 0;
  const push = medianOf(9, () => {
    const r = new EpisodeRecorder(
      () => (sent++, true),
      () => ({ cols: 120, rows: 30 }),
    );
    r.enabled = true;
    const t = performance.now();
    for (let i = 0; i < N; i++) r.push(i % 50 === 0 ? "o" : "i", "k");
    r.flush();
    return ((performance.now() - t) * 1e6) / N;
  });
  const bare = medianOf(9, () => {
    const a: [number, string, string][] = [];
    const t = performance.now();
    for (let i = 0; i < N; i++) a.push([Date.now(), "i", "k"]);
    return ((performance.now() - t) * 1e6) / N;
  });
  console.log(
    `browser: EpisodeRecorder.push ${push.toFixed(0)} ns a keystroke (bare array push with Date.now ${bare.toFixed(0)} ns, ratio ${(push / bare).toFixed(1)}); ${N.toLocaleString("en")} keys made ${Math.round(sent / 9)} chunks`,
  );

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-recording-bench-"));
  process.env.IC_DB = path.join(dir, "studio.db");
  try {
    const { insertEpisodesBulk } = await import("@/lib/db/bulk-import");
    const { appendRecordingChunk, getRecordingByEpisode } = await import("@/lib/db/recordings");
    const { getRawDb } = await import("@/lib/db/sqlite");
    await insertEpisodesBulk({
      episodes: [
        {
          id: "bench-rec",
          sourceKey: "bench:rec",
          environment: "bash",
          dataset: "demo-bash",
          taskId: "0",
          taskIndex: 0,
          query: "q",
          playerKind: "human",
          annotator: "a",
          model: null,
          policy: null,
          turnLimit: 10,
          status: "submitted",
          reward: 1,
          success: true,
          solvedAtTurn: 1,
          startedAt: Date.now(),
          durationMs: 1,
          turns: [],
        },
      ],
    });
    // A typical two-second batch: 40 keys and their echo.
    const events = Array.from({ length: 80 }, (_, i) => [i * 25, i % 2 ? "o" : "i", "k"] as [number, "i" | "o", string]);
    const chunk = { turnIndex: 0, startedAt: Date.now(), events, cols: 120, rows: 30 };
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      await appendRecordingChunk({ episodeId: "bench-rec", chunk, maxBytes: DEFAULT_RECORDING_MAX_BYTES });
      times.push(performance.now() - t);
    }
    const db = getRawDb();
    const ins = db.prepare(`INSERT INTO "RecordingChunk" ("episodeId", "seq", "turnIndex", "startedAt", "events", "bytes") VALUES (?, ?, 0, ?, ?, 1)`);
    const json = JSON.stringify(events);
    const base: number[] = [];
    for (let i = 0; i < 200; i++) {
      const t = performance.now();
      ins.run("bench-rec", 100_000 + i, Date.now(), json);
      base.push(performance.now() - t);
    }
    const s = stats(times);
    const b = stats(base);
    console.log(
      `store: one chunk (80 events) ${s.median.toFixed(3)} ms median, p95 ${s.p95.toFixed(3)} ms (bare insert ${b.median.toFixed(3)} ms, ratio ${(s.median / b.median).toFixed(1)})`,
    );

    // An episode at the cap: one big recording read and written as asciicast.
    const bigEvents = Array.from({ length: 1000 }, (_, i) => [i, "o", "x".repeat(400)] as [number, "o", string]);
    for (let i = 0; i < 12; i++)
      await appendRecordingChunk({
        episodeId: "bench-rec",
        chunk: { turnIndex: i, startedAt: Date.now(), events: bigEvents },
        maxBytes: DEFAULT_RECORDING_MAX_BYTES,
      });
    const rec = await getRecordingByEpisode({ episodeId: "bench-rec" });
    const castMs = medianOf(5, () => {
      const t = performance.now();
      toAsciicast(rec);
      return performance.now() - t;
    });
    console.log(
      `cast: an episode at the cap (${(rec.bytes / 1e6).toFixed(1)} MB of events, truncated=${rec.truncated}) as asciicast v2 in ${castMs.toFixed(0)} ms median`,
    );
    console.log(
      `(load average ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")} on ${os.cpus().length} cores)`,
    );
    return 0;
  } finally {
    const { closeStore } = await import("@/lib/db/client");
    await closeStore();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
