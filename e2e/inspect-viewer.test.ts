import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import * as esbuild from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeStore } from "@/lib/db/client";
import { importPaths } from "@/lib/trajectories/import-paths";
import { importLogText } from "@/lib/trajectories/import";
import { exportInspectLog } from "@/lib/trajectories/export-ecosystem";
import { useBrowser } from "@/lib/testing/browser";
import { useFreshDb } from "@/lib/testing/store";

// An Inspect log the Studio exported, opened in Inspect's own log viewer (npm
// @metrevals/inspect-log-viewer, bundled here with esbuild and served over HTTP on 127.0.0.1):
// the samples, their messages and their scores must appear.

const root = path.resolve(__dirname, "..");
const browser = useBrowser({ beforeAll, afterAll });
let server: http.Server;
let base = "";

const JSONL = JSON.stringify({
  format: "icstudio.episode",
  version: 1,
  id: "viewer-1",
  environment: "bash",
  dataset: "demo-bash",
  taskId: "count-files",
  query: "How many files are in /srv/kiln?",
  playerKind: "model",
  model: "scripted/m1",
  policy: "react",
  turnLimit: 3,
  status: "submitted",
  reward: 0.75,
  success: false,
  startedAt: "2026-01-01T00:00:00.000Z",
  turns: [
    {
      index: 0,
      actor: "model",
      action: "ls /srv/kiln | wc -l",
      observation: "17\n",
      ok: true,
      reward: 0.75,
      thought: "I will count the kiln files",
      tokensIn: 40,
      tokensOut: 6,
    },
  ],
});

beforeAll(async () => {
  useFreshDb("inspect-viewer");
  await importPaths([path.join(root, "lib/trajectories/fixtures/logs/gpt-3.5")]);
  expect((await importLogText("viewer.jsonl", JSONL + "\n")).added).toBe(1);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-inspect-viewer-"));
  fs.mkdirSync(path.join(dir, "logs"));
  const exported = await exportInspectLog({ out: path.join(dir, "logs", "studio.eval") });
  expect(exported.episodes).toBeGreaterThan(1);
  await closeStore();
  await esbuild.build({
    entryPoints: [path.join(root, "e2e/inspect-viewer/entry.tsx")],
    bundle: true,
    outdir: dir,
    format: "esm",
    jsx: "automatic",
    minify: true,
    logLevel: "error",
    loader: { ".woff": "file", ".woff2": "file", ".ttf": "file", ".eot": "file", ".svg": "file", ".png": "file", ".gif": "file", ".wasm": "file" },
    define: { "process.env.NODE_ENV": '"production"' },
  });
  fs.writeFileSync(
    path.join(dir, "index.html"),
    `<!doctype html><html><head><meta charset="utf-8"><link rel="stylesheet" href="/entry.css"></head><body><div id="root"></div><script type="module" src="/entry.js"></script></body></html>`,
  );
  const types: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".eval": "application/zip" };
  server = http.createServer((req, res) => {
    const p = path.join(dir, decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
    const file = p.endsWith("/") ? path.join(p, "index.html") : p;
    if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end();
      return;
    }
    const body = fs.readFileSync(file);
    // The viewer reads a .eval's directory with range requests.
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
    if (range) {
      const start = Number(range[1]);
      const end = range[2] ? Math.min(Number(range[2]), body.length - 1) : body.length - 1;
      res.writeHead(206, {
        "content-type": types[path.extname(file)] ?? "application/octet-stream",
        "content-range": `bytes ${start}-${end}/${body.length}`,
        "accept-ranges": "bytes",
        "content-length": end - start + 1,
      });
      res.end(body.subarray(start, end + 1));
      return;
    }
    res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream", "accept-ranges": "bytes", "content-length": body.length });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}, 300_000);

afterAll(async () => {
  await new Promise<void>((r) => server?.close(() => r()));
});

describe("Inspect's log viewer opens a Studio export", () => {
  it("shows the samples, their scores and, in a sample, its messages and tool calls", async () => {
    const page = await browser().newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${base}/?log_file=${encodeURIComponent(`${base}/logs/studio.eval`)}`);
    // The sample list: each exported episode's question, and the scores.
    await page.getByText("How many files are in /srv/kiln?").first().waitFor({ timeout: 60_000 });
    await page.screenshot({ path: path.join(os.tmpdir(), "ic-inspect-viewer-list.png") });
    const list = await page.locator("body").innerText();
    expect(list).toContain("0.75");
    await page.getByText("How many files are in /srv/kiln?").first().click();
    try {
      await page.getByText("I will count the kiln files").first().waitFor({ timeout: 30_000 });
    } finally {
      await page.screenshot({ path: path.join(os.tmpdir(), "ic-inspect-viewer-sample.png") });
    }
    const sample = await page.locator("body").innerText();
    expect(sample).toContain("ls /srv/kiln | wc -l");
    expect(sample).toContain("17");
    // The Messages tab: the question as the user's message, the reply and its tool call.
    await page
      .getByRole("tab", { name: /messages/i })
      .first()
      .click();
    await page.getByText("How many files are in /srv/kiln?").nth(1).waitFor({ timeout: 30_000 });
    const messages = await page.locator("body").innerText();
    expect(messages).toContain("I will count the kiln files");
    expect(messages).toContain("ls /srv/kiln | wc -l");
    expect(errors).toEqual([]);
  });
});
