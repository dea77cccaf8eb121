import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { dbRecorder } from "@/lib/episodes/db-recorder";
import { getTask } from "@/lib/datasets/registry";
import type { Task } from "@/lib/datasets/types";
import { getEpisodeById } from "@/lib/db/episodes";
import { getRawDb } from "@/lib/db/sqlite";
import { episodeGold, goldShown } from "@/lib/episodes/gold";
import { createBranchEpisode } from "@/lib/replay/branch";
import { useLiveEpisodeManager } from "@/lib/testing/live-episodes";

// Episode.gold meant three things: the playground and branch stored a CTF task's write-up and
// flag, a model run the flag alone, and a bash task's list of commands as JSON. Now every path
// stores episodeGold(task), and a migration rewrites what was stored before.
const liveManager = useLiveEpisodeManager("episode-gold");

const storedGold = async (id: string) => (await getEpisodeById({ id }))!.gold;
const modelEpisode = (task: Task) =>
  dbRecorder().startEpisode({
    task,
    env: task.env,
    player: { kind: "model", model: "scripted", policy: "try-again" },
    turnLimit: 5,
    mode: "eval",
    feedback: "none",
  });

describe("Episode.gold", () => {
  it("is the same text for the same task whichever path created the episode", async () => {
    const task = getTask("demo-ctf", "base64-note");
    expect(goldShown(task)).not.toBe(episodeGold(task)); // the write-up is shown, not stored
    const played = await liveManager().open(
      { type: "open", env: "ctf", taskRef: "demo-ctf:base64-note", mode: "play", feedback: "none", turnLimit: 10 },
      () => {},
    );
    await liveManager().action(played, "ls", "console"); // an episode is stored by its first action
    await liveManager().abandon(played);
    const model = await modelEpisode(task);
    const branch = await createBranchEpisode({ episodeId: played.id, turn: 0, annotator: "tester" });
    const golds = await Promise.all([played.id, model, branch.id].map(storedGold));
    expect(golds).toEqual([task.gold, task.gold, task.gold]);
  });

  it("a bash task's commands are stored one per line, and the migration rewrites the old forms", async () => {
    const base = getTask("demo-bash", "count-errors");
    const task = { ...base, gold: ["grep -c ERROR app.log", "wc -l app.log"] } as Task;
    const model = await modelEpisode(task);
    expect(await storedGold(model)).toBe("grep -c ERROR app.log\nwc -l app.log");

    const ctf = getTask("demo-ctf", "base64-note");
    const oldCtf = await modelEpisode(ctf);
    const db = getRawDb();
    db.prepare(`UPDATE "Episode" SET "gold" = ? WHERE "id" = ?`).run(JSON.stringify(task.gold), model);
    db.prepare(`UPDATE "Episode" SET "gold" = ? WHERE "id" = ?`).run(goldShown(ctf), oldCtf);
    const sql = fs.readFileSync(path.resolve(__dirname, "../../prisma/migrations/20261201170000_episode_gold_one_meaning/migration.sql"), "utf8");
    db.exec(sql);
    expect(await storedGold(model)).toBe(episodeGold(task));
    expect(await storedGold(oldCtf)).toBe(ctf.gold);
    db.exec(sql); // a second run changes nothing
    expect(await storedGold(model)).toBe(episodeGold(task));
    expect(await storedGold(oldCtf)).toBe(ctf.gold);
  });
});
