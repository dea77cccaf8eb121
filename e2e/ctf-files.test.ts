import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { getTask } from "@/lib/datasets/registry";
import { useBrowser } from "@/lib/testing/browser";
import { PlayPage } from "./pages/play-page";
import { ROOT } from "@/lib/testing/studio-server";
import { readEpisode } from "./store";

/**
 * InterCode CTF tasks with their files, played in the browser: needs InterCode's sets fetched
 * (`icstudio datasets fetch intercode`, as CI does) into the data directory the server reads.
 */
const baseUrl = inject("baseUrl");
const dbPath = inject("dbPath");
const browser = useBrowser({ beforeAll, afterAll });

const sharedWriteup = (id: string) => fs.readFileSync(path.join(ROOT, "../shared/intercode/ctf/task_assets", id, "solution/README.md"), "utf8");

describe("InterCode CTF tasks with files, in the browser", () => {
  it("starts in the task's folder with its files; the write-up shows only after submit", async () => {
    const task = getTask("ctf", "0");
    if (task.env !== "ctf") throw new Error("not a ctf task");
    const writeupLine = sharedWriteup("0")
      .split("\n")
      .find((l) => l.trim().length > 8)!
      .trim();
    const page = await browser().newPage();
    const play = new PlayPage(page, baseUrl);
    await play.open("ctf", "ctf", "0");
    const pageText = () => page.evaluate(() => document.body.innerText + Array.from(document.scripts, (s) => s.textContent ?? "").join("\n"));
    expect(await pageText()).not.toContain(writeupLine);
    await play.typeInConsole("pwd; ls");
    await play.waitTurns(1);
    await play.waitConsole(/\/ctf\s+unpackme\.flag\.py/);
    await play.typeInConsole(`submit ${task.gold}`);
    expect(await play.reward()).toBe(1);
    await page.waitForSelector('[data-testid="gold"]');
    expect(await play.gold()).toContain(writeupLine);
    fs.mkdirSync(path.join(ROOT, "e2e/artifacts"), { recursive: true });
    await page.screenshot({ path: path.join(ROOT, "e2e/artifacts/ctf-intercode-files.png") });
    expect(readEpisode(dbPath, play.episodeId()).episode).toMatchObject({ status: "submitted", reward: 1, environment: "ctf" });
    await page.close();
  });

  it("says so when a task's files are missing, in the task panel and the picker", async () => {
    const page = await browser().newPage();
    const play = new PlayPage(page, baseUrl);
    await play.open("ctf", "ctf", "65");
    expect(await page.textContent('[data-testid="files-missing"]')).toMatch(/not in the published copy/);
    await page.goto(`${baseUrl}/play?env=ctf&dataset=ctf&q=srch_strings`);
    expect(await page.textContent('[data-testid="task-list"]')).toContain("(task files missing)");
    await page.close();
  });
});
