import fs from "node:fs";
import { getRecordingByEpisode } from "@/lib/db/recordings";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createEpisode } from "@/lib/db/episodes";
import { getEpisodeById } from "@/lib/db/episodes";
import { createStudioServer } from "@/lib/http/studio-server";
import { createLiveEpisodeManager, prepareStore } from "@/lib/live/wiring";
import type { LiveEpisodeManager } from "@/lib/live/live-episodes";
import { createStudyFromSelection, type StudyView } from "@/lib/studies/studies";
import { getStudy } from "@/lib/studies/studies";
import { getParticipant, inviteParticipants, revokeParticipant } from "@/lib/studies/participants";
import { useTempStore } from "@/lib/testing/store";
import { clientMessageSchema, type ClientMessageInput } from "@/lib/live/protocol";
import type { LiveEvent } from "@/lib/live/events";
import { ROOT } from "@/lib/testing/studio-server";

useTempStore("participant-access");

const TOKEN = "participant-walk-token-0123456789abcdef-xyz";

/** A websocket client that keeps every message. */
class Client {
  readonly messages: LiveEvent[] = [];
  private seen = 0;
  constructor(readonly ws: WebSocket) {
    ws.on("message", (d) => this.messages.push(JSON.parse(String(d)) as LiveEvent));
  }
  static async connect(url: string, cookie: string): Promise<Client> {
    const ws = new WebSocket(url, { headers: { cookie } });
    const c = new Client(ws);
    await new Promise((res, rej) => (ws.once("open", res), ws.once("error", rej)));
    await c.next();
    return c;
  }
  /** Sends `m` and waits for the next message of one of `types`. */
  async ask(m: ClientMessageInput, types: LiveEvent["type"][] = ["opened", "error", "pong", "submitted", "turnEnd", "abandoned"]): Promise<LiveEvent> {
    this.ws.send(JSON.stringify(m));
    for (;;) {
      const got = await this.next();
      if (types.includes(got.type)) return got;
    }
  }
  async next(timeoutMs = 30_000): Promise<LiveEvent> {
    const t0 = Date.now();
    while (this.messages.length <= this.seen) {
      if (Date.now() - t0 > timeoutMs) throw new Error(`no message within ${timeoutMs} ms; got ${JSON.stringify(this.messages.slice(-3))}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return this.messages[this.seen++];
  }
}

/** Every route.ts and page.tsx under app/, as URL templates ("/api/studies/[id]/next"). */
function appFiles(name: "route.ts" | "page.tsx"): { template: string; methods: string[] }[] {
  const out: { template: string; methods: string[] }[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === name) {
        const rel = path
          .relative(path.join(ROOT, "app"), path.dirname(p))
          .split(path.sep)
          .filter((s) => s && !/^\(.*\)$/.test(s));
        const src = fs.readFileSync(p, "utf8");
        const methods = name === "page.tsx" ? ["GET"] : [...src.matchAll(/export (?:async )?function (GET|POST|PUT|PATCH|DELETE)\b/g)].map((m) => m[1]);
        out.push({ template: "/" + rel.join("/"), methods });
      }
    }
  };
  walk(path.join(ROOT, "app"));
  return out;
}

let manager: LiveEpisodeManager;
let server: ReturnType<typeof createStudioServer>["server"];
let base: string;
let study: StudyView;
let other: StudyView;
let p1: { id: string; path: string; participant: string };
let p2: { id: string; path: string; participant: string };
let cookie1 = "";
let cookie2 = "";

async function redeem(invitePath: string, headers: Record<string, string> = {}) {
  return fetch(`${base}${invitePath}`, { redirect: "manual", headers });
}
const cookieOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");

beforeAll(async () => {
  await prepareStore();
  manager = createLiveEpisodeManager({ idleMs: 60_000, maxSandboxes: 3, backend: "local" });
  // The next handler stands for Next.js: whatever reaches it passed the access check.
  server = createStudioServer({
    token: TOKEN,
    manager,
    handle: (req, res) =>
      void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ reached: req.url, role: req.headers["x-ic-role"] })),
  }).server;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  study = (await getStudy(
    (
      await createStudyFromSelection({
        name: "walk",
        env: "python",
        dataset: "demo-python",
        selection: { kind: "indices", indices: [0, 1, 2] },
        assign: "balanced",
      })
    ).id,
  ))!;
  other = (await getStudy(
    (
      await createStudyFromSelection({ name: "other", env: "python", dataset: "demo-python", selection: { kind: "indices", indices: [3] } })
    ).id,
  ))!;
  [p1, p2] = await inviteParticipants(study.id, 2, 7 * 86_400_000);
  const r1 = await redeem(p1.path);
  const r2 = await redeem(p2.path);
  cookie1 = cookieOf(r1);
  cookie2 = cookieOf(r2);
});

afterAll(async () => {
  await manager?.shutdown();
  server?.close();
});

describe("invite links", () => {
  it("open an HttpOnly SameSite=Strict session (Secure behind a TLS proxy on this machine) and send the participant to their study", async () => {
    const [p] = await inviteParticipants(study.id, 1, null);
    const res = await redeem(p.path);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/play/study/${encodeURIComponent(study.id)}`);
    const session = res.headers.getSetCookie().find((c) => c.startsWith("ic_session="))!;
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Strict/);
    expect(session).not.toMatch(/Secure/);
    const tls = await redeem(p.path, { "x-forwarded-proto": "https" });
    expect(tls.headers.getSetCookie().find((c) => c.startsWith("ic_session="))).toMatch(/; Secure/);
    // What reaches the app is the participant's, not the owner's.
    const landing = await fetch(`${base}/play/study/${study.id}`, { headers: { cookie: cookieOf(res) } });
    expect(await landing.json()).toMatchObject({ role: "participant" });
  });

  it("a forged invite gets 401 and a page saying so; a revoked or expired one 403", async () => {
    const forged = await redeem(`/invite/${"A".repeat(43)}`, { "x-forwarded-for": "1" });
    expect(forged.status).toBe(401);
    expect(await forged.text()).toMatch(/not valid/);
    const [r, e] = await inviteParticipants(other.id, 2, 1000);
    await revokeParticipant(other.id, r.id);
    const revoked = await redeem(r.path);
    expect(revoked.status).toBe(403);
    expect(await revoked.text()).toMatch(/withdrew/);
    await new Promise((res) => setTimeout(res, 1100));
    const expired = await redeem(e.path);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toMatch(/expired/);
  });
});

describe("a participant session, deny by default", () => {
  it("walks every route.ts and page with a participant session: only their study's landing, its small API and their own tasks pass", async () => {
    const mine = study.config.tasks;
    const theirs = other.config.tasks;
    // The values each path parameter is tried with: the participant's own, and someone else's.
    const values: Record<string, string[]> = {
      id: [study.id, other.id, "01a00000-0000-7000-8000-000000000000"],
      participantId: [p1.id, p2.id],
      env: ["python", "sql"],
      taskId: [...mine.map((t) => `demo-python:${t}`), `demo-python:${theirs[0]}`],
      taskRef: [`demo-python:${mine[0]}`],
    };
    const expand = (template: string): string[] => {
      const m = /\[(\w+)\]/.exec(template);
      if (!m) return [template];
      return (values[m[1]] ?? ["x"]).flatMap((v) => expand(template.replace(m[0], encodeURIComponent(v))));
    };
    const allowed: string[] = [];
    const refused: string[] = [];
    const tryOne = async (method: string, target: string) => {
      const res = await fetch(`${base}${target}`, {
        method,
        redirect: "manual",
        headers: { cookie: cookie1, ...(method === "GET" ? {} : { "content-type": "application/json" }) },
        body: method === "GET" ? undefined : "{}",
      });
      if (res.status === 200) allowed.push(`${method} ${target}`);
      else {
        expect([401, 403]).toContain(res.status);
        refused.push(`${method} ${target}`);
      }
    };
    const routes = appFiles("route.ts");
    const pages = appFiles("page.tsx");
    expect(routes.length).toBeGreaterThan(25);
    for (const r of routes) for (const target of expand(r.template)) for (const method of r.methods) await tryOne(method, target);
    for (const p of pages) {
      for (const target of expand(p.template)) {
        await tryOne("GET", target);
        // A task page within their study, and the model view of it.
        if (p.template.startsWith("/play/[env]")) {
          await tryOne("GET", `${target}?study=${study.id}`);
          await tryOne("GET", `${target}?study=${study.id}&agent=1`);
          await tryOne("GET", `${target}?study=${other.id}`);
        }
      }
    }
    const s = encodeURIComponent(study.id);
    expect(allowed.sort()).toEqual(
      [
        `GET /api/studies/${s}/next`,
        `POST /api/studies/${s}/consent`,
        `POST /api/studies/${s}/clock`,
        `GET /play/study/${s}`,
        // Open to anyone.
        "GET /login",
        ...mine.map((t) => `GET /play/python/${encodeURIComponent(`demo-python:${t}`)}?study=${study.id}`),
      ].sort(),
    );
    console.log(
      `participant route walk: ${routes.length} route.ts files and ${pages.length} pages, ${allowed.length + refused.length} requests: ${allowed.length} allowed, ${refused.length} refused`,
    );
  });

  it("walks every websocket message type: only their current task opens, only their own episodes resume, the outcome follows the feedback setting", async () => {
    const ws = base.replace("http", "ws") + "/ws";
    const c = await Client.connect(ws, cookie1);
    const types = new Set(clientMessageSchema.options.map((o) => o.shape.type.value));
    const walked = new Set<string>();
    let allowed = 0;
    let refused = 0;
    const expectRefused = async (m: ClientMessageInput, pattern: RegExp) => {
      walked.add(m.type);
      const got = await c.ask(m);
      expect(got.type, JSON.stringify(got)).toBe("error");
      expect((got as { message: string }).message).toMatch(pattern);
      refused++;
    };
    const [first, second] = (await getParticipant(p1.id))!.tasks;
    // Before an episode is open, nothing but open, resume and ping does anything.
    for (const m of [
      { type: "action", text: "print(1)", source: "console" },
      { type: "submit" },
      { type: "abandon", reason: "skip: x" },
      { type: "restart" },
      { type: "record", turnIndex: 0, startedAt: Date.now(), events: [[0, "i", "x"]] },
    ] as ClientMessageInput[])
      await expectRefused(m, /no episode is open/);
    await expectRefused({ type: "open", env: "python", taskRef: `demo-python:${second}`, studyId: study.id }, /not your current task/);
    await expectRefused({ type: "open", env: "python", taskRef: `demo-python:${other.config.tasks[0]}`, studyId: other.id }, /own study/);
    await expectRefused({ type: "open", env: "python", taskRef: `demo-python:${first}`, mode: "play" }, /own study/);
    // Another participant's episode and the owner's cannot be resumed.
    const c2 = await Client.connect(ws, cookie2);
    const order2 = (await getParticipant(p2.id))!.tasks;
    const o2 = await c2.ask({ type: "open", env: "python", taskRef: `demo-python:${order2[0]}`, studyId: study.id });
    expect(o2.type).toBe("opened");
    await c2.ask({ type: "action", text: "print(2)", source: "console" }, ["turnEnd"]);
    const otherEpisode = (o2 as Extract<LiveEvent, { type: "opened" }>).episode.id;
    await expectRefused({ type: "resume", episodeId: otherEpisode }, /not one of yours/);
    const ownerEp = await createEpisode({
      environment: "python",
      dataset: "demo-python",
      taskId: first,
      query: "q",
      playerKind: "human",
      annotator: "owner",
      turnLimit: 5,
      mode: "play",
      feedback: "none",
    });
    await expectRefused({ type: "resume", episodeId: ownerEp.id }, /not one of yours/);
    // No model: a participant neither watches a model's episode nor, so, drives one.
    await expectRefused({ type: "watch", id: "any-model-episode" }, /does not watch model episodes/);
    await expectRefused({ type: "control", op: "takeOver" }, /no model episode is watched/);

    walked.add("ping");
    expect((await c.ask({ type: "ping", t: 1 })).type).toBe("pong");
    allowed++;
    // Their current task opens with the study's conditions and the Studio's name for them, whatever they ask.
    walked.add("open");
    const opened = (await c.ask({
      type: "open",
      env: "python",
      taskRef: `demo-python:${first}`,
      studyId: study.id,
      annotator: "Someone Else",
      mode: "play",
    })) as Extract<LiveEvent, { type: "opened" }>;
    expect(opened.type).toBe("opened");
    expect(opened.episode).toMatchObject({ annotator: p1.participant, mode: "baseline", studyId: study.id });
    allowed++;
    walked.add("action");
    expect((await c.ask({ type: "action", text: "print(40 + 2)", source: "console" })).type).toBe("turnEnd");
    allowed++;
    // Their own episode's recording is stored (a batch is answered with nothing; wait for it in the store).
    walked.add("record");
    c.ws.send(JSON.stringify({ type: "record", turnIndex: 0, startedAt: Date.now(), events: [[0, "i", "p"]] }));
    let rec = await getRecordingByEpisode({ episodeId: opened.episode.id });
    for (let i = 0; i < 40 && rec.chunks.length === 0; i++) {
      await new Promise((ok) => setTimeout(ok, 50));
      rec = await getRecordingByEpisode({ episodeId: opened.episode.id });
    }
    expect(rec.chunks.map((x) => x.events)).toEqual([[[0, "i", "p"]]]);
    allowed++;
    walked.add("interrupt");
    c.ws.send(JSON.stringify({ type: "interrupt" }));
    allowed++;
    walked.add("restart");
    const restarted = (await c.ask({ type: "restart" }, ["opened", "error"])) as Extract<LiveEvent, { type: "opened" }>;
    expect(restarted.type).toBe("opened");
    allowed++;
    await c.ask({ type: "action", text: "print(1)", source: "console" });
    walked.add("submit");
    const sub = await c.ask({ type: "submit" });
    // feedback none, no gold after submit: nothing of the outcome reaches the participant.
    expect(sub).toMatchObject({ type: "submitted", hidden: true, gold: "", goldObservation: "", reward: 0 });
    allowed++;
    // Their own submitted episode is theirs to ask for, but the study seals its outcome (no other episode named).
    walked.add("resume");
    const again = await c.ask({ type: "resume", episodeId: restarted.episode.id });
    expect(again).toMatchObject({ type: "error", message: "this task's outcome is sealed while the study runs" });
    refused++;
    const stored = await getEpisodeById({ id: restarted.episode.id });
    expect(stored).toMatchObject({ annotator: p1.participant, studyId: study.id, status: "submitted" });
    // The next task: skip it (abandon with a reason).
    await c.ask({ type: "open", env: "python", taskRef: `demo-python:${second}`, studyId: study.id });
    walked.add("abandon");
    expect((await c.ask({ type: "abandon", reason: "skip: too hard" })).type).toBe("abandoned");
    allowed++;
    expect([...types].sort()).toEqual([...walked].sort());

    // Revoked: the very next message is refused, and so is the next request.
    await revokeParticipant(study.id, p2.id);
    const late = await c2.ask({ type: "action", text: "print(3)", source: "console" });
    expect(late).toMatchObject({ type: "error", code: "unauthorized" });
    refused++;
    const page = await fetch(`${base}/play/study/${study.id}`, { headers: { cookie: cookie2, accept: "text/html" } });
    expect(page.status).toBe(401);
    expect(await page.text()).toMatch(/access has ended/);
    expect((await fetch(`${base}/api/studies/${study.id}/next`, { headers: { cookie: cookie2 } })).status).toBe(401);
    console.log(`participant websocket walk: ${types.size} message types, ${allowed + refused} messages: ${allowed} allowed, ${refused} refused`);
    c.ws.close();
    c2.ws.close();
  });
});

describe("invite guessing", () => {
  it("is rate-limited per address like a wrong token: after 10 failures even a good invite waits", async () => {
    const [good] = await inviteParticipants(study.id, 1, null);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await redeem(`/invite/${String(i).padStart(43, "x")}`)).status);
    expect(statuses.slice(0, 8).every((s) => s === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    const blocked = await redeem(good.path);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
