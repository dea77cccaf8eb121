import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { dbRecorder } from "@/lib/episodes/db-recorder";
import { CONNECTION_TEST_PROMPT } from "@/lib/agent/connection-test";
import { keyFilePath, storeDir } from "@/lib/agent/key-store";
import { resolveModel } from "@/lib/agent/models";
import { runEpisode } from "@/lib/agent/run-episode";
import { goldAction, replyFor } from "@/lib/agent/scripts";
import { startScriptedServer, type ScriptedServer } from "@/lib/agent/scripted-server";
import { loadDataset } from "@/lib/datasets/registry";
import { useTempStore } from "@/lib/testing/store";

/**
 * A key entered in the models page never leaves the server: every /api route (found on disk, so a
 * new route is probed too) is called with every method it exports, with a store holding a model
 * whose key is SECRET and an episode played by it, and no answer and no log line holds the key.
 */

const SECRET = "sk-probe-0123456789abcdef-never-show";
const API = path.resolve(__dirname);
useTempStore("key-leak");
let server: ScriptedServer;
let episodeId = "";
const logged: string[] = [];

function routeFiles(dir = API): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? routeFiles(p) : d.name === "route.ts" ? [p] : [];
  });
}

beforeAll(async () => {
  server = await startScriptedServer({ rules: [], apiKey: SECRET });
  const config = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ic-key-leak-")), "models.json");
  fs.writeFileSync(config, JSON.stringify({ models: [] }));
  process.env.IC_MODELS_CONFIG = config;
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(" ")));
  }
});
afterAll(async () => {
  vi.restoreAllMocks();
  await server?.close();
});

describe("the key store behind the routes", () => {
  it("no /api route answers with the key, and nothing logs it", async () => {
    const models = await import("./models/route");
    const added = await models.POST(
      new NextRequest("http://studio.test/api/models", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ provider: "openai-compatible", baseURL: server.baseURL, model: "scripted", id: "probe", apiKey: SECRET }),
      }),
    );
    expect(added.status).toBe(201);
    const addedText = await added.text();
    expect(addedText).not.toContain(SECRET);
    expect(JSON.parse(addedText).model).toMatchObject({ id: "probe", keySet: true, keySource: "stored" });
    expect(fs.statSync(keyFilePath(storeDir())).mode & 0o777).toBe(0o600);

    // An episode played by that model (the key goes to the provider: the server demands it).
    const task = loadDataset("demo-sql")[0]!;
    server.setScript({
      apiKey: SECRET,
      rules: [
        { match: CONNECTION_TEST_PROMPT, replies: ["OK"] },
        { match: task.query, replies: [replyFor("try-again", task, goldAction(task))] },
      ],
    });
    const out = await runEpisode({ task, model: resolveModel("probe"), policy: "try-again", maxTurns: 2, recorder: dbRecorder() });
    expect(out.status).toBe("submitted");
    episodeId = out.episodeId;

    const files = routeFiles();
    const probed: string[] = [];
    let deleteModel: (() => Promise<Response>) | null = null;
    for (const file of files) {
      const rel = path.relative(API, path.dirname(file)).split(path.sep);
      const params: Record<string, string> = {};
      const segments = rel.map((seg, i) => {
        const m = /^\[(.+)\]$/.exec(seg);
        if (!m) return seg;
        params[m[1]!] = rel[i - 1] === "models" ? "probe" : rel[i - 1] === "episodes" ? episodeId : "no-such-id";
        return params[m[1]!]!;
      });
      const url = `http://studio.test/api/${segments.join("/")}${rel.at(-1) === "transcript" ? "?turn=0" : ""}`;
      const mod = (await import(file)) as Record<string, unknown>;
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
        const handler = mod[method] as ((req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>) | undefined;
        if (typeof handler !== "function") continue;
        const call = () =>
          handler(new NextRequest(url, method === "GET" ? { method } : { method, headers: { "content-type": "application/json" }, body: "{}" }), {
            params: Promise.resolve(params),
          });
        // Removing the model goes last, so every other route sees it.
        if (method === "DELETE" && rel[0] === "models") {
          deleteModel = call;
          continue;
        }
        const res = await call();
        const text = await res.text();
        probed.push(`${method} ${url} ${res.status}`);
        expect(text, `${method} ${url}`).not.toContain(SECRET);
      }
    }
    const removed = await deleteModel!();
    expect(await removed.text()).not.toContain(SECRET);
    probed.push(`DELETE /api/models/probe ${removed.status}`);

    // The routes that show models and the episode answered for real (not 404s that prove nothing).
    expect(probed).toEqual(
      expect.arrayContaining([
        "GET http://studio.test/api/models 200",
        "GET http://studio.test/api/agent/models 200",
        "POST http://studio.test/api/models/probe/test 200",
        `GET http://studio.test/api/episodes/${episodeId} 200`,
        `GET http://studio.test/api/episodes/${episodeId}/transcript?turn=0 200`,
        "GET http://studio.test/api/episodes/export 200",
        "DELETE /api/models/probe 200",
      ]),
    );
    expect(probed.length).toBeGreaterThanOrEqual(files.length);
    expect(logged.filter((l) => l.includes(SECRET))).toEqual([]);
  });
});
