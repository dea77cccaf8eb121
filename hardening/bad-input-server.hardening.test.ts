/**
 * Bad input against the live server (production build): oversized actions (1 MB) and malformed
 * messages over the websocket, malformed, wrongly typed and oversized JSON bodies for every route
 * that takes a body, and path tricks in every parameter that names a file or a task (URL segments,
 * query parameters, body fields, websocket fields). Each must get a clear error naming what was
 * wrong, the server must stay up, and nothing stored may change. (hardening/bad-input.hardening.test.ts
 * covers the same parsers in-process.)
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import Database from "better-sqlite3";
import WebSocket from "ws";
import { describe, expect, it } from "vitest";
import { recordFigure } from "./figures";
import { liveFixture } from "./live-fixture";
import { appRoutes } from "./routes";
import { spawnStudio } from "@/lib/testing/studio-server";
import { connectWs } from "@/lib/testing/ws-client";

const ROW = "live server: ws messages, API bodies, path tricks";
const { canRun, db, sockets, track } = liveFixture("ic-hardening-badserver-", { section: "bad input", row: ROW });

/** Every stored row of the tables a request could change, as a hash per table. */
function storeHash(): Record<string, string> {
  const store = new Database(db, { readonly: true });
  const out: Record<string, string> = {};
  // ImportedFile is the importer's log of files seen (by content hash); a refused file may add a
  // row there with 0 episodes, checked on its own below.
  for (const t of ["Episode", "Turn", "Study", "Annotation", "Run"]) {
    const h = createHash("sha256");
    const rows = store.prepare(`SELECT * FROM "${t}" ORDER BY rowid`).all();
    for (const row of rows) h.update(JSON.stringify(row));
    out[t] = `${rows.length} rows ${h.digest("hex").slice(0, 12)}`;
  }
  store.close();
  return out;
}

const MB = 1_000_000;
const TRICKS = [
  "../../etc/passwd",
  "..%2F..%2Fetc%2Fpasswd",
  "/etc/passwd",
  "demo-bash:../../../etc/passwd",
  "demo-bash/../demo-sql:x",
  "..\\..\\windows",
  "demo-bash:count-python-files\u0000.json",
  "%00",
  "demo-sql:../../../var/studio.db",
];

describe.skipIf(!canRun)("bad input against the live server", () => {
  it("each is refused with an error naming what was wrong; the server stays up; nothing stored changes", async () => {
    const server = track(await spawnStudio({ IC_DB: db }));
    const base = server.url;
    // Something stored to protect: an episode with a turn, still running.
    const a = await connectWs(base);
    sockets.push(a);
    a.send({ type: "open", env: "bash", taskRef: "demo-bash:count-python-files" });
    const episodeId = (await a.next("opened", 120_000)).episode.id;
    a.send({ type: "action", text: "echo stored", source: "console" });
    await a.next("turnEnd");

    let tried = 0;
    const failures: string[] = [];
    const byKind: Record<string, number> = {};
    const count = (kind: string) => {
      tried++;
      byKind[kind] = (byKind[kind] ?? 0) + 1;
    };
    // An action too big for the episode's own connection (after open): refused, the episode goes on.
    a.send(JSON.stringify({ type: "action", text: "x".repeat(MB), source: "console" }));
    const big = await a.next(["error", "turnStart"], 30_000);
    count("ws");
    if (big.type !== "error" || !/larger than/.test(big.message)) failures.push(`ws 1 MB action in an open episode: ${JSON.stringify(big).slice(0, 200)}`);
    a.send({ type: "action", text: "echo still-here", source: "console" });
    const after = await a.next(["turnEnd", "error"], 60_000);
    count("ws");
    if (after.type !== "turnEnd" || after.observation.trim() !== "still-here")
      failures.push(`the episode did not go on after the 1 MB action: ${JSON.stringify(after).slice(0, 200)}`);
    const before = storeHash();

    // ---- websocket ----
    const ws = await connectWs(base);
    sockets.push(ws);
    /** Sends raw text; the answer must be an error whose message matches `names`, and the connection stays usable. */
    const wsBad = async (label: string, raw: string, names: RegExp) => {
      count("ws");
      const from = ws.seen.length;
      ws.send(raw);
      const m = await ws.next(["error", "opened", "submitted", "turnEnd"], 30_000).catch((e: Error) => e);
      if (m instanceof Error) return failures.push(`ws ${label}: ${m.message.slice(0, 160)}`);
      if (m.type !== "error") return failures.push(`ws ${label}: answered ${m.type}`);
      if (!names.test(m.message)) failures.push(`ws ${label}: the error does not say what was wrong: ${m.message.slice(0, 200)}`);
      if (ws.seen.slice(from).some((x) => x.type === "opened")) failures.push(`ws ${label}: an episode opened`);
    };
    const action = (text: string) => JSON.stringify({ type: "action", text, source: "console" });
    await wsBad("not JSON", "{type: action", /not JSON/i);
    await wsBad("empty", "", /not JSON/i);
    await wsBad("a JSON number", "42", /expected object|invalid/i);
    await wsBad("unknown type", '{"type":"shell","cmd":"id"}', /type|invalid/i);
    await wsBad("action without text", '{"type":"action","source":"console"}', /text/);
    await wsBad("action with a number as text", '{"type":"action","text":5,"source":"console"}', /text/);
    await wsBad("action with an unknown source", '{"type":"action","text":"ls","source":"api"}', /source/);
    await wsBad("action before open", action("ls"), /no episode is open/);
    await wsBad("submit before open", '{"type":"submit"}', /no episode is open/);
    await wsBad("prototype keys", '{"__proto__":{"type":"open"},"constructor":{"prototype":{"x":1}}}', /type|invalid/i);
    await wsBad("deeply nested", "[".repeat(30_000) + "]".repeat(30_000), /expected object|invalid/i);
    await wsBad("open with an unknown environment", '{"type":"open","env":"cobol","taskRef":"x"}', /env/);
    await wsBad("open with a negative turn limit", '{"type":"open","env":"bash","taskRef":"demo-bash:count-python-files","turnLimit":-1}', /turnLimit/);
    await wsBad("resume with a 200-character id", JSON.stringify({ type: "resume", episodeId: "a".repeat(200) }), /episodeId/);
    await wsBad("resume of an unknown episode", JSON.stringify({ type: "resume", episodeId: "no-such-episode" }), /not found|no-such-episode/i);
    for (const t of TRICKS) {
      await wsBad(`open taskRef ${JSON.stringify(t)}`, JSON.stringify({ type: "open", env: "bash", taskRef: t }), /task|dataset|not found|invalid|ref/i);
      await wsBad(`resume episodeId ${JSON.stringify(t)}`, JSON.stringify({ type: "resume", episodeId: t }), /not found|episode/i);
    }
    await wsBad(
      "open with a study that does not exist",
      JSON.stringify({ type: "open", env: "bash", taskRef: "demo-bash:count-python-files", studyId: "../../etc" }),
      /study/,
    );
    // Oversized: a 1 MB action (within the socket's frame limit, over the message limit), and 70 KB (over the action limit).
    await wsBad("a 1 MB action", action("x".repeat(MB)), /larger than \d+ KiB/);
    await wsBad("a 70 KB action", action("y".repeat(70_000)), /larger than 64 KiB/);
    await wsBad("a 1 MB submit argument", JSON.stringify({ type: "submit", arg: "z".repeat(MB) }), /larger than/);
    // Binary frame, and a frame over the socket's own limit (2 MB): the socket closes with 1009.
    {
      count("ws");
      const raw = new WebSocket(`${base.replace(/^http/, "ws")}/ws`);
      await new Promise((r) => raw.once("open", r));
      const msgs: string[] = [];
      raw.on("message", (d) => msgs.push(d.toString()));
      raw.send(Buffer.from([0xff, 0x00, 0x01]), { binary: true });
      await new Promise((r) => setTimeout(r, 300));
      if (!msgs.some((m) => /binary messages are not part of the protocol/.test(m))) failures.push(`ws binary frame: ${msgs.join(" ").slice(0, 200)}`);
      count("ws");
      const closed = new Promise<{ code: number; reason: string }>((r) => raw.once("close", (code, reason) => r({ code, reason: reason.toString() })));
      raw.send(action("x".repeat(2 * MB)));
      const c = await Promise.race([closed, new Promise<null>((r) => setTimeout(() => r(null), 10_000))]);
      if (c?.code !== 1009) failures.push(`ws 2 MB frame: ${c ? `closed ${c.code} ${c.reason}` : "not closed"}`);
    }

    // ---- API bodies: every route method that takes one ----
    const routes = appRoutes((name) =>
      name === "id"
        ? episodeId
        : name === "env"
          ? "bash"
          : name === "taskId" || name === "taskRef"
            ? "demo-bash:count-python-files"
            : name === "participantId"
              ? "no-such-participant"
              : undefined,
    );
    // Handlers that read a body (the others, e.g. the gold run or a DELETE, ignore it by design).
    const readsBody = (file: string) => /parseJsonBody\(|req\.json\(|formData\(|req\.text\(/.test(fs.readFileSync(file, "utf8"));
    const bodyRoutes = routes
      .filter((r) => readsBody(r.file))
      .flatMap((r) => r.methods.filter((m) => ["POST", "PUT", "PATCH", "DELETE"].includes(m)).map((m) => ({ ...r, method: m })));
    const hugeFields = Object.fromEntries(
      ["name", "text", "taskRef", "env", "turn", "model", "op", "episodeId", "kind", "annotator", "dataset", "tag", "author"].map((k) => [
        k,
        k[0].repeat(MB / 10),
      ]),
    );
    const badBodies: [string, string, RegExp][] = [
      ["malformed JSON", '{"name": "x", ', /JSON|body|multipart/i],
      ["not JSON at all", "\u0000\u0001binary\xff", /JSON|body|multipart/i],
      ["an empty body", "", /JSON|body|multipart|required/i],
      ["a JSON array", "[1,2,3]", /expected object|body|multipart|invalid/i],
      ["JSON null", "null", /expected object|body|multipart|invalid/i],
      [
        "wrong types",
        JSON.stringify({ name: 7, env: ["bash"], turn: "one", op: 5, episodeId: {}, kind: 1, text: null, model: 3, taskRef: 4 }),
        /expected|invalid|body|multipart|not found/i,
      ],
      ["a 1.3 MB body (every field 100 KB)", JSON.stringify(hugeFields), /too big|too long|large|body|multipart|invalid|expected|not found|>=|<=|at most/i],
    ];
    for (const r of bodyRoutes) {
      for (const [label, body, names] of badBodies) {
        count("api body");
        const res = await fetch(`${base}${r.url}`, { method: r.method, headers: { "content-type": "application/json" }, body });
        const text = await res.text();
        let err: { message?: string; where?: string } | undefined;
        try {
          err = (JSON.parse(text) as { error?: { message?: string; where?: string } }).error;
        } catch {
          // not JSON: judged below
        }
        const named = `${err?.message ?? ""} ${err?.where ?? ""}`;
        if (res.status < 400 || res.status >= 500) failures.push(`${r.method} ${r.pattern} with ${label} → ${res.status}: ${text.slice(0, 160)}`);
        else if (!err?.message) failures.push(`${r.method} ${r.pattern} with ${label} → ${res.status} without a JSON error: ${text.slice(0, 160)}`);
        else if (!names.test(named) && !(res.status === 404 && /not found/.test(named)))
          failures.push(`${r.method} ${r.pattern} with ${label} → ${res.status}: the error does not say what was wrong: ${named.slice(0, 200)}`);
      }
    }

    // ---- path tricks in every parameter that names a file or a task ----
    const trickTargets: { label: string; url: string; method?: string; body?: string }[] = [];
    for (const t of TRICKS) {
      const e = encodeURIComponent(t);
      trickTargets.push(
        { label: "page /play/[env]/[taskId]", url: `/play/bash/${e}` },
        { label: "page /play/[env]/[taskId] env", url: `/play/${e}/count-python-files` },
        { label: "page /tasks/[env]/[taskRef]", url: `/tasks/bash/${e}` },
        { label: "page /episodes/[id]", url: `/episodes/${e}` },
        { label: "GET /api/episodes/[id]", url: `/api/episodes/${e}` },
        { label: "POST /api/episodes/[id]/gold", url: `/api/episodes/${e}/gold`, method: "POST" },
        { label: "POST /api/episodes/[id]/recheck", url: `/api/episodes/${e}/recheck`, method: "POST" },
        { label: "GET /api/studies/[id]/next", url: `/api/studies/${e}/next?annotator=a` },
        { label: "GET /api/tasks ?dataset", url: `/api/tasks?dataset=${e}` },
        { label: "GET /api/tasks ?fs", url: `/api/tasks?env=bash&fs=${e}` },
        { label: "GET /api/tasks ?db", url: `/api/tasks?env=sql&db=${e}` },
        {
          label: "POST /api/studies dataset",
          url: "/api/studies",
          method: "POST",
          body: JSON.stringify({ name: "trick", env: "bash", dataset: t, selection: { kind: "slice", count: 1 } }),
        },
        { label: "POST /api/live taskRef", url: "/api/live", method: "POST", body: JSON.stringify({ env: "bash", taskRef: t, model: "m" }) },
        {
          label: "POST /api/annotations episodeId",
          url: "/api/annotations",
          method: "POST",
          body: JSON.stringify({ episodeId: t, kind: "note", text: "x", author: "a" }),
        },
        { label: "GET /api/episodes/export ?dataset", url: `/api/episodes/export?format=jsonl&dataset=${e}` },
      );
    }
    for (const tt of trickTargets) {
      count("path trick");
      const res = await fetch(`${base}${tt.url}`, {
        method: tt.method ?? "GET",
        redirect: "manual",
        headers: { "content-type": "application/json", accept: tt.url.startsWith("/api") ? "application/json" : "text/html" },
        body: tt.body,
      });
      const text = await res.text();
      if (/root:x:0:0|SQLite format 3/.test(text)) failures.push(`${tt.label} ${tt.url}: served a host file`);
      // A filter naming nothing is answered with nothing (200 and no rows); everything else must be refused.
      const emptyAnswer = res.status === 200 && tt.label.includes("?") && /"(tasks|total)"\s*:\s*(\[\]|0)|^$/.test(text);
      if (!emptyAnswer && (res.status < 400 || res.status >= 500))
        failures.push(`${tt.label} ${JSON.stringify(tt.url)} → ${res.status}: ${text.slice(0, 120)}`);
      if (res.status >= 400 && tt.url.startsWith("/api") && !/"message"\s*:\s*"[^"]{5,}/.test(text))
        failures.push(`${tt.label} → ${res.status} without an error message: ${text.slice(0, 120)}`);
    }
    // The importer: hostile file names (a name is never a path it writes to).
    for (const name of ["../../../tmp/ic-evil.json", "/etc/passwd", "..\\..\\x_turns.json", "\u0000.json"]) {
      count("path trick");
      const form = new FormData();
      form.append("file", new Blob(['{"0": {"trajectory": "nope"}}'], { type: "application/json" }), name);
      const res = await fetch(`${base}/api/episodes/import`, { method: "POST", body: form });
      const text = await res.text();
      const files = res.status === 200 ? (JSON.parse(text) as { files: { added: number; error?: string; rejected: unknown[] }[] }).files : [];
      if (res.status >= 500 || (res.status === 200 && files.some((f) => f.added > 0 || (!f.error && !f.rejected.length))))
        failures.push(`import file named ${JSON.stringify(name)} → ${res.status}: ${text.slice(0, 160)}`);
    }
    if (fs.existsSync("/tmp/ic-evil.json")) failures.push("the importer wrote /tmp/ic-evil.json");
    {
      const store = new Database(db, { readonly: true });
      const logged = store.prepare(`SELECT COALESCE(SUM(episodes), 0) AS n FROM ImportedFile`).get() as { n: number };
      store.close();
      if (logged.n !== 0) failures.push(`the importer's log counts ${logged.n} imported episode(s) from hostile files`);
    }

    // ---- the server is up, the stored episode is intact and goes on ----
    const health = await fetch(`${base}/api/tasks?env=bash&limit=1`);
    const alive = health.status === 200 && server.child.exitCode === null;
    const afterHash = storeHash();
    const changed = Object.keys(before).filter((t) => before[t] !== afterHash[t]);
    const unchanged = changed.length === 0;
    if (!alive) failures.push(`the server is not answering: ${health.status}`);
    if (!unchanged) failures.push(`the stored rows changed: ${changed.map((t) => `${t} ${before[t]} → ${afterHash[t]}`).join("; ")}`);
    recordFigure({
      section: "bad input",
      row: ROW,
      tried,
      passed: tried - failures.length,
      unit: "rejected",
      extra: { ...byKind, "server up": String(alive), "store unchanged": String(unchanged) },
      failures,
    });
    expect(failures).toEqual([]);
  }, 900_000);
});
