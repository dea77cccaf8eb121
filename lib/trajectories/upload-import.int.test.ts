import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { closeStore } from "@/lib/db/client";
import { withWriteLock } from "@/lib/db/lock";
import { getRawDb } from "@/lib/db/sqlite";
import { useFreshDb } from "@/lib/testing/store";
import { importUploadedFile, uploadThread } from "./upload-import";

const file = useFreshDb("upload-import");
const dir = path.dirname(file);

function episodeLine(i: number): string {
  return JSON.stringify({
    format: "icstudio.episode",
    version: 1,
    id: `0190c000-0000-7000-8000-${i.toString(16).padStart(12, "0")}`,
    environment: "bash",
    dataset: "upload-thread",
    taskId: String(i),
    query: `print ${i}`,
    playerKind: "model",
    model: "m",
    policy: "try-again",
    turnLimit: 3,
    mode: "eval",
    status: "submitted",
    reward: 1,
    success: true,
    startedAt: new Date().toISOString(),
    turns: [{ index: 0, actor: "model", action: `echo ${i}`, observation: `${i}\n` }],
  });
}

afterAll(async () => {
  await closeStore();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("uploads import on their own thread", () => {
  it("stores the file from the upload thread, under the server's write lock, and reports it", async () => {
    const upload = path.join(dir, "a.jsonl");
    fs.writeFileSync(upload, Array.from({ length: 50 }, (_, i) => episodeLine(i)).join("\n") + "\n");
    // Hold this thread's write lock: the thread may read and convert, but must not store until it is let go.
    let release!: () => void;
    const held = withWriteLock(() => new Promise<void>((r) => (release = r)));
    let done = false;
    const importing = importUploadedFile("a.jsonl", upload, {}).finally(() => (done = true));
    await new Promise((r) => setTimeout(r, 3_000));
    expect(done).toBe(false);
    expect(uploadThread().live).toBe(true);
    expect((getRawDb().prepare("SELECT COUNT(*) AS n FROM Episode").get() as { n: number }).n).toBe(0);
    release();
    await held;
    const report = await importing;
    expect(report).toMatchObject({ file: "a.jsonl", format: "jsonl", episodes: 50, added: 50, skipped: 0 });
    expect((getRawDb().prepare("SELECT COUNT(*) AS n FROM Episode").get() as { n: number }).n).toBe(50);
    // The same file again: known by its hash, nothing added.
    expect(await importUploadedFile("a.jsonl", upload, {})).toMatchObject({ added: 0, skipped: 50 });
  }, 60_000);

  it("names what was wrong with a bad file, and the thread goes on to the next", async () => {
    const bad = path.join(dir, "b.jsonl");
    fs.writeFileSync(bad, "{not json\n");
    const report = await importUploadedFile("b.jsonl", bad, {});
    expect(report.added).toBe(0);
    expect(JSON.stringify(report)).toMatch(/line 1/);
    const good = path.join(dir, "c.jsonl");
    fs.writeFileSync(good, episodeLine(99) + "\n");
    expect(await importUploadedFile("c.jsonl", good, {})).toMatchObject({ added: 1 });
  }, 60_000);
});
