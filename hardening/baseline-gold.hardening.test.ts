/**
 * Access, baseline studies: an annotator cannot get a task's gold solution, its gold output or a
 * reward through any route before submitting. Against the real server (production build): a
 * study is created, an annotator opens its first task in baseline mode and takes a turn; then
 * every page and API route the app defines (found on the file system, each exported method, with
 * query variants) and every websocket message is tried for that task's gold and rewards. After the
 * annotator submits, the gold is there.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { recordFigure } from "./figures";
import { liveFixture } from "./live-fixture";
import { appRoutes } from "./routes";
import { spawnStudio } from "@/lib/testing/studio-server";
import { connectWs } from "@/lib/testing/ws-client";
import { loadDataset } from "@/lib/datasets/registry";

const ROW = "baseline: gold and reward before submit";
const { canRun, dir, db, sockets, track } = liveFixture("ic-hardening-baseline-", { section: "access", row: ROW });

/**
 * Text as a reader would find it in any response: JSON, HTML and the RSC payload escape the same
 * characters differently, so escapes are decoded and only letters and digits are kept.
 */
function normalizeForSearch(s: string): string {
  let t = s;
  // JSON escapes, possibly escaped again (the RSC payload is JSON inside a JS string).
  for (let i = 0; i < 3; i++) t = t.replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))).replace(/\\+[nrtbf]/g, " ");
  t = t
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCharCode(Number(d)))
    .replace(/&(quot|amp|lt|gt|apos);/g, " ");
  return t.replace(/[^A-Za-z0-9]/g, "").toLowerCase();
}

/** Objects anywhere in `v` that carry `id` with a numeric reward-like key. */
function rewardsFor(v: unknown, id: string, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) rewardsFor(x, id, out);
  else if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (o.id === id || o.episodeId === id) for (const [k, x] of Object.entries(o)) if (/reward/i.test(k) && typeof x === "number") out.push(`${k}=${x}`);
    for (const x of Object.values(o)) rewardsFor(x, id, out);
  }
  return out;
}

/** Any numeric reward-like key anywhere in `v`. */
function anyReward(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(anyReward);
  if (v && typeof v === "object") return Object.entries(v).some(([k, x]) => (/reward/i.test(k) && typeof x === "number") || anyReward(x));
  return false;
}

async function json(res: Response): Promise<unknown> {
  return JSON.parse(await res.text());
}

describe.skipIf(!canRun)("baseline study: no gold or reward before submit", () => {
  it("every route and websocket message refuses or omits them; after submit the gold is there", async () => {
    const modelsFile = path.join(dir, "models.json");
    // An available model (a local endpoint that takes any key): a model run would start if not refused.
    fs.writeFileSync(
      modelsFile,
      JSON.stringify({
        models: [
          {
            id: "local-probe",
            provider: "openai-compatible",
            model: "probe",
            baseURL: "http://127.0.0.1:9/v1",
            apiKeyOptional: true,
            contextWindow: 8192,
            price: { inputPerMtok: 0, outputPerMtok: 0 },
          },
        ],
      }),
    );
    const server = track(await spawnStudio({ IC_DB: db, IC_MODELS_CONFIG: modelsFile }));
    const base = server.url;

    // The study's first task (demo-bash's fourth); the study is made after the play episode below,
    // since a study seals its tasks from its creation.
    const taskId = loadDataset("demo-bash")[3].id;
    const taskRef = `demo-bash:${taskId}`;

    // Someone played the task before the study (a finished play episode with its gold stored).
    const p = await connectWs(base);
    sockets.push(p);
    p.send({ type: "open", env: "bash", taskRef, mode: "play", feedback: "reward" });
    const playId = (await p.next("opened", 120_000)).episode.id;
    p.send({ type: "action", text: "ls /project", source: "console" });
    await p.next("turnEnd");
    p.send({ type: "submit" });
    const playSubmitted = await p.next("submitted");
    const goldObservation = playSubmitted.goldObservation;
    p.close();

    // A study of two tasks (it shows the gold after each submit); the annotator's first task.
    const created = await fetch(`${base}/api/studies`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: "hardening baseline",
        env: "bash",
        dataset: "demo-bash",
        selection: { kind: "slice", from: 3, count: 2 },
        feedback: "none",
        turnLimit: 10,
        showGoldAfterSubmit: true,
      }),
    });
    expect(created.status).toBe(201);
    const studyId = ((await json(created)) as { id: string }).id;
    const next = (await json(await fetch(`${base}/api/studies/${studyId}/next?annotator=ann-a`))) as { href: string };
    expect(decodeURIComponent(new URL(next.href, base).pathname.split("/")[3])).toBe(taskRef);

    // The annotator opens the study task in baseline mode and takes a turn.
    const a = await connectWs(base);
    sockets.push(a);
    a.send({ type: "open", env: "bash", taskRef, mode: "baseline", feedback: "none", studyId, annotator: "ann-a" });
    const opened = await a.next("opened", 120_000);
    const episodeId = opened.episode.id;
    a.send({ type: "action", text: "head -2 /project/logs/access.log", source: "console" });
    const firstTurn = await a.next("turnEnd");

    const store = new Database(db, { readonly: true });
    const gold = (store.prepare(`SELECT gold FROM Episode WHERE id = ?`).get(episodeId) as { gold: string }).gold;
    store.close();
    const goldN = normalizeForSearch(gold);
    const goldObsN = normalizeForSearch(goldObservation);
    // The probes mean something only when gold and its output are long enough to be recognised.
    expect(goldN.length).toBeGreaterThan(15);
    expect(goldObsN.length).toBeGreaterThan(8);
    expect(normalizeForSearch(JSON.stringify(opened.task))).not.toContain(goldN);

    const failures: string[] = [];
    let probes = 0;
    let refused = 0;
    /** Judges one response body (before submit): no gold, no gold output, no reward for the annotator's episode. */
    const judge = (label: string, status: number, body: string, scope: "episode" | "other") => {
      probes++;
      if (status >= 400) refused++;
      const n = normalizeForSearch(body);
      if (n.includes(goldN)) failures.push(`${label} → ${status}: holds the gold solution`);
      if (n.includes(goldObsN)) failures.push(`${label} → ${status}: holds the gold output`);
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(body);
      } catch {
        // pages and streams: the text checks above
      }
      const r = rewardsFor(parsed, episodeId);
      if (r.length) failures.push(`${label} → ${status}: a reward of the baseline episode (${r.join(", ")})`);
      if (scope === "episode" && status < 400 && anyReward(parsed))
        failures.push(`${label} → ${status}: a reward in a response about the baseline episode or its task`);
      if (scope === "episode" && status < 400 && /"reward"\s*:\s*\d/.test(body.replace(/\\"/g, '"')))
        failures.push(`${label} → ${status}: a reward value in the page`);
    };

    // ---- every page and API route, for the baseline episode and for the earlier play episode ----
    const bodies: Record<string, unknown[]> = {
      "/api/episodes/[id]/branch": [{ turn: 1, annotator: "ann-a" }, { turn: 0 }],
      "/api/live": [{ env: "bash", taskRef, model: "local-probe" }],
      "/api/annotations": [{ episodeId, kind: "note", text: "probe" }],
    };
    const queries = [
      "",
      `?ids=${episodeId},${playId}`,
      "?format=jsonl",
      "?format=intercode",
      `?env=bash&dataset=demo-bash&task=${encodeURIComponent(taskId)}`,
      `?episode=${episodeId}`,
      `?study=${studyId}&i=0`,
    ];
    let routesWalked = 0;
    for (const target of [episodeId, playId]) {
      const routes = appRoutes((name, pattern) => {
        if (name === "id")
          return pattern.startsWith("/api/studies") || pattern.startsWith("/play/study")
            ? studyId
            : pattern.startsWith("/api/live")
              ? "no-such-run"
              : pattern.startsWith("/api/annotations")
                ? "no-such-annotation"
                : target;
        if (name === "env") return "bash";
        if (name === "taskId" || name === "taskRef") return taskRef;
        if (name === "participantId") return "no-such-participant";
        return undefined;
      });
      routesWalked = routes.length;
      for (const r of routes) {
        const scope = r.pattern.includes("[id]") && r.pattern.startsWith("/api/episodes") ? "episode" : "other";
        for (const method of r.methods.filter((m) => m !== "HEAD")) {
          const withBody = ["POST", "PUT", "PATCH", "DELETE"].includes(method);
          const variants = withBody
            ? (bodies[r.pattern] ?? [{}]).map((b) => ({ q: "", body: JSON.stringify(b) }))
            : queries.map((q) => ({ q, body: undefined }));
          for (const v of variants) {
            const label = `${method} ${r.url}${v.q}${v.body ? ` ${v.body.slice(0, 60)}` : ""}`;
            const res = await fetch(`${base}${r.url}${v.q}`, {
              method,
              redirect: "manual",
              headers: { "content-type": "application/json", accept: "text/html,application/json" },
              body: v.body,
            });
            let text = await res.text();
            // Follow a redirect once (the random task, the study runner) and judge where it lands too.
            const loc = res.headers.get("location");
            if (res.status >= 300 && res.status < 400 && loc) text += await (await fetch(new URL(loc, base))).text();
            judge(label, res.status, text, scope);
          }
        }
      }
    }
    // A model run may not have started on the sealed task (it would be scored and could be taken over).
    const runs = await fetch(`${base}/api/live`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ env: "bash", taskRef, model: "local-probe" }),
    });
    probes++;
    if (runs.status !== 409) failures.push(`POST /api/live on the sealed task → ${runs.status} (a model run started)`);
    else refused++;

    // ---- websocket messages ----
    if (firstTurn.reward !== undefined) failures.push(`ws turnEnd of the baseline episode carried reward ${firstTurn.reward}`);
    probes++;
    const b = await connectWs(base);
    sockets.push(b);
    const wsProbe = async (label: string, send: () => void, until: ("opened" | "error" | "submitted" | "turnEnd" | "pong")[]) => {
      const from = b.raw.length;
      send();
      const m = await b.next(until, 120_000);
      await new Promise((r) => setTimeout(r, 150));
      judge(`ws ${label}`, m.type === "error" ? 409 : 200, b.raw.slice(from).join("\n"), "other");
      return m;
    };
    // Reconnect to the annotator's own episode: turns, no submitted payload.
    const resumed = await wsProbe("resume the baseline episode", () => b.send({ type: "resume", episodeId }), ["opened", "error"]);
    if (resumed.type === "opened" && resumed.submitted) failures.push("ws resume of the running baseline episode carried a submitted payload");
    // Resume the earlier, submitted play episode: its gold must stay hidden.
    await wsProbe("resume the submitted play episode", () => b.send({ type: "resume", episodeId: playId }), ["opened", "error"]);
    // A play episode on the same task (would be scored after every turn and show gold on submit).
    const play = await wsProbe("open a play episode on the task", () => b.send({ type: "open", env: "bash", taskRef, mode: "play", feedback: "reward" }), [
      "opened",
      "error",
    ]);
    if (play.type === "opened") {
      b.send({ type: "action", text: "echo probe", source: "console" });
      await wsProbe("play episode: submit", () => b.send({ type: "submit" }), ["submitted", "error"]);
    }
    // The study task again with feedback "reward" asked for: the study's conditions win.
    const tampered = await wsProbe(
      "open the study task asking for feedback=reward",
      () => b.send({ type: "open", env: "bash", taskRef, mode: "play", feedback: "reward", studyId, annotator: "ann-b" }),
      ["opened", "error"],
    );
    if (tampered.type === "opened") {
      if (tampered.episode.feedback !== "none" || tampered.episode.mode !== "baseline")
        failures.push(`ws open in the study got mode=${tampered.episode.mode} feedback=${tampered.episode.feedback}`);
      const t = await wsProbe("study episode asking for reward: an action", () => b.send({ type: "action", text: "echo probe", source: "console" }), [
        "turnEnd",
        "error",
      ]);
      if (t.type === "turnEnd" && t.reward !== undefined) failures.push(`ws turnEnd in a feedback=none study carried reward ${t.reward}`);
      b.send({ type: "abandon", reason: "probe" });
      await b.next("abandoned");
    }
    // A second baseline episode outside the study, submitted: scored, but the gold stays hidden.
    const second = await wsProbe(
      "open a baseline episode outside the study",
      () => b.send({ type: "open", env: "bash", taskRef, mode: "baseline", feedback: "reward", annotator: "ann-c" }),
      ["opened", "error"],
    );
    if (second.type === "opened") await wsProbe("second baseline episode: submit", () => b.send({ type: "submit" }), ["submitted", "error"]);
    await wsProbe("a submit with no episode of this connection's own", () => b.send({ type: "submit", arg: "x" }), ["submitted", "error", "opened"]).catch(
      () => null,
    );
    for (const [label, msg] of [
      ["ping", { type: "ping", t: 1 }],
      ["interrupt", { type: "interrupt" }],
    ] as const) {
      const from = a.raw.length;
      a.send(msg);
      await new Promise((r) => setTimeout(r, 200));
      judge(`ws ${label} on the baseline episode`, 200, a.raw.slice(from).join("\n"), "other");
    }

    // ---- after submit: the gold is there ----
    // The resume probe took the episode over from the first window: the annotator reconnects and submits.
    const a2 = await connectWs(base);
    sockets.push(a2);
    a2.send({ type: "resume", episodeId });
    await a2.next("opened", 120_000);
    a2.send({ type: "submit" });
    const submitted = await a2.next(["submitted", "error"]);
    const after: string[] = [];
    if (submitted.type !== "submitted" || submitted.gold !== gold || !submitted.goldObservation)
      after.push(`ws submit → ${JSON.stringify(submitted).slice(0, 200)}`);
    // The study's seal holds until it is closed: then the viewer and the gold route give it.
    if ((await fetch(`${base}/api/studies/${studyId}/close`, { method: "POST" })).status !== 200) after.push("POST /api/studies/:id/close failed");
    const viewer = await fetch(`${base}/api/episodes/${episodeId}`);
    const viewerBody = await viewer.text();
    if (viewer.status !== 200 || !normalizeForSearch(viewerBody).includes(goldN)) after.push(`GET /api/episodes/:id → ${viewer.status}`);
    const goldRoute = await fetch(`${base}/api/episodes/${episodeId}/gold`, { method: "POST" });
    const goldBody = await goldRoute.text();
    // The same search that found nothing before submit finds the gold and its output now.
    if (goldRoute.status !== 200 || !normalizeForSearch(goldBody).includes(goldN) || !normalizeForSearch(goldBody).includes(goldObsN))
      after.push(
        `POST /api/episodes/:id/gold → ${goldRoute.status}: ${goldBody.slice(0, 300)} (gold output at submit: ${JSON.stringify(goldObservation).slice(0, 200)})`,
      );
    const page = await fetch(`${base}/episodes/${episodeId}`);
    if (page.status !== 200 || !normalizeForSearch(await page.text()).includes(goldN)) after.push(`GET /episodes/:id → ${page.status}`);

    recordFigure({
      section: "access",
      row: ROW,
      tried: probes,
      passed: probes - new Set(failures.map((f) => f.split(" → ")[0])).size,
      unit: "withheld",
      extra: { "routes walked": routesWalked, refused, "gold after submit": after.length ? "missing" : "shown" },
      failures: [...failures, ...after.map((x) => `after submit: ${x}`)],
    });
    expect(failures).toEqual([]);
    expect(after).toEqual([]);
  }, 900_000);
});
