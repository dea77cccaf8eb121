/**
 * "No open door" (issue 23): the probes that once got through, against the real server (server.ts,
 * production build). Each finding is a row of the hardening figures with how many probes it ran
 * and how many were refused or handled.
 */
import fs from "node:fs";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordFigure } from "./figures";
import { appAvailable, ensureApp } from "./studio-process";
import { spawnStudio, type StudioProcess } from "@/lib/testing/studio-server";
import { connectWs, tempDb } from "@/lib/testing/ws-client";
import { launchBrowser } from "@/lib/testing/browser";
import { config } from "@/lib/config";

const canRun = appAvailable();
const TOKEN = `open-door-token-${process.pid}-0123456789abcdef`;

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string };

/** One raw HTTP request (Host included, which fetch will not set). */
function request(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<Answer> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const r = http.request(
      {
        host: u.hostname,
        port: u.port,
        method,
        path,
        headers: { ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}), ...headers },
      },
      (res) => {
        let b = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (b += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: b }));
      },
    );
    r.on("error", reject);
    r.end(body);
  });
}

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) * 1024 : 0;
}

/** Sends `total` bytes declared up front; resolves with the status the server answered (or 0 if it hung up first). */
/**
 * Posts a body announced as `total` bytes: its first MB, then waits up to 5 s for an answer, and
 * only then the rest. Resolves to the status and how many bytes had been sent when it came (0 when
 * no answer came). A server that refuses before reading answers within the first MB; one that reads
 * the body first answers only after the rest. (Writing all 200 MB at once raced the refusal: under
 * load the client's write failed on the closed socket before it read the 413.)
 */
function bigBody(base: string, path: string, total: number, headers: Record<string, string>): Promise<{ status: number; sentMb: number }> {
  const u = new URL(base);
  return new Promise((resolve) => {
    let answer: { status: number; sentMb: number } | null = null;
    let sent = 0;
    const done = (a: { status: number; sentMb: number }) => {
      answer ??= a;
      resolve(answer);
    };
    const r = http.request({ host: u.hostname, port: u.port, method: "POST", path, headers: { ...headers, "content-length": String(total) } }, (res) => {
      answer ??= { status: res.statusCode ?? 0, sentMb: Math.round(sent / 1024 / 1024) };
      res.resume();
      res.on("end", () => done(answer!));
    });
    r.on("error", () => done({ status: 0, sentMb: Math.round(sent / 1024 / 1024) }));
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    const pump = () => {
      while (sent < total && !answer) {
        sent += chunk.length;
        if (!r.write(chunk)) return void r.once("drain", pump);
      }
      if (!answer) r.end();
    };
    r.write(chunk);
    sent = chunk.length;
    setTimeout(() => {
      if (!answer) pump();
    }, 5000);
  });
}

describe.skipIf(!canRun)("no open door", () => {
  const open = tempDb("ic-open-door-");
  const locked = tempDb("ic-open-door-token-");
  let studio: StudioProcess; // loopback, no token (the default)
  let guarded: StudioProcess; // with a token
  beforeAll(async () => {
    ensureApp();
    [studio, guarded] = await Promise.all([
      spawnStudio({ IC_DB: open.db, IC_TOKEN: "", IC_MAX_SANDBOXES: "4", IC_LOCAL_POOL: "0", IC_IDLE_MS: "600000" }),
      spawnStudio({ IC_DB: locked.db, IC_TOKEN: TOKEN }),
    ]);
  }, 300_000);
  afterAll(async () => {
    await Promise.all([studio?.stop(), guarded?.stop()]);
    fs.rmSync(open.dir, { recursive: true, force: true });
    fs.rmSync(locked.dir, { recursive: true, force: true });
  });

  it("1. cross-site posts (text/plain, forms, multipart, file://) change nothing", async () => {
    const port = studio.port;
    const model = JSON.stringify({ provider: "openai-compatible", model: "m", id: "evil", baseURL: "http://127.0.0.1:9/v1", apiKeyEnv: "MY_CLOUD_SECRET" });
    const probes: Array<[string, string, Record<string, string>, string]> = [
      ["/api/models", "text/plain from another port", { origin: "http://127.0.0.1:9997", "content-type": "text/plain" }, model],
      ["/api/models", "text/plain from file://", { origin: "null", "content-type": "text/plain" }, model],
      ["/api/models", "form from another site", { origin: "http://evil.example", "content-type": "application/x-www-form-urlencoded" }, "a=1"],
      ["/api/models", "JSON from another port", { origin: "http://127.0.0.1:9997", "content-type": "application/json" }, model],
      ["/api/models", "text/plain with no Origin but a foreign Referer", { referer: "http://127.0.0.1:9997/x", "content-type": "text/plain" }, model],
      ["/api/models", "same-origin text/plain (not JSON)", { origin: `http://127.0.0.1:${port}`, "content-type": "text/plain" }, model],
      ["/api/models/evil/test", "connection test from another port", { origin: "http://127.0.0.1:9997", "content-type": "text/plain" }, "{}"],
      [
        "/api/episodes/import",
        "multipart import from another port",
        { origin: "http://127.0.0.1:9997", "content-type": "multipart/form-data; boundary=x" },
        '--x\r\nContent-Disposition: form-data; name="file"; filename="a.jsonl"\r\n\r\n{}\r\n--x--\r\n',
      ],
      ["/api/runs", "a model run from another port", { origin: "http://127.0.0.1:9997", "content-type": "text/plain" }, "{}"],
    ];
    const failures: string[] = [];
    for (const [path, label, headers, body] of probes) {
      const r = await request(studio.url, "POST", path, headers, body);
      if (r.status !== 403 && r.status !== 415) failures.push(`${label}: ${r.status} ${r.body.slice(0, 100)}`);
    }
    // apiKeyEnv outside the allowlist, same-origin JSON: refused naming the field.
    const env = await request(studio.url, "POST", "/api/models", { origin: `http://127.0.0.1:${port}`, "content-type": "application/json" }, model);
    if (env.status !== 400 || !/apiKeyEnv/.test(env.body)) failures.push(`apiKeyEnv MY_CLOUD_SECRET: ${env.status} ${env.body.slice(0, 120)}`);
    const models = await request(studio.url, "GET", "/api/models");
    if (models.body.includes('"evil"')) failures.push("a model was added");
    recordFigure({
      section: "open door",
      row: "1 cross-site POST, apiKeyEnv allowlist",
      tried: probes.length + 2,
      passed: probes.length + 2 - failures.length,
      unit: "refused",
      failures,
    });
    expect(failures).toEqual([]);
  });

  it("2. a rebound Host is refused on HTTP and on the websocket upgrade", async () => {
    const port = studio.port;
    const failures: string[] = [];
    let tried = 0;
    for (const host of [`evil.example:${port}`, "evil.example", `127.0.0.1.nip.example:${port}`]) {
      for (const path of ["/api/episodes", "/", "/models", "/api/models"]) {
        tried++;
        const r = await request(studio.url, "GET", path, { host, accept: "text/html" });
        if (r.status !== 421) failures.push(`HTTP ${host} ${path}: ${r.status}`);
      }
      tried++;
      const ws = await connectWs(studio.url, { host, origin: `http://${host}` }).then(
        (c) => (c.close(), "connected"),
        (e: Error) => e.message,
      );
      if (!/421/.test(ws)) failures.push(`websocket ${host}: ${ws}`);
    }
    tried++;
    const own = await request(studio.url, "GET", "/api/episodes", { host: `localhost:${port}` });
    if (own.status !== 200) failures.push(`localhost:${port} refused: ${own.status}`);
    recordFigure({ section: "open door", row: "2 rebound Host (HTTP + websocket)", tried, passed: tried - failures.length, unit: "refused", failures });
    expect(failures).toEqual([]);
  });

  it("3. every page says it may not be framed, nor sniffed, under a CSP", async () => {
    const failures: string[] = [];
    const paths = ["/", "/models", "/episodes", "/play", "/runs", "/api/models", "/login"];
    for (const p of paths) {
      const r = await request(studio.url, "GET", p, { accept: "text/html" });
      const csp = String(r.headers["content-security-policy"] ?? "");
      if (!/frame-ancestors 'none'/.test(csp) || r.headers["x-frame-options"] !== "DENY" || r.headers["x-content-type-options"] !== "nosniff")
        failures.push(`${p}: ${r.status} csp=${csp.slice(0, 60)} xfo=${r.headers["x-frame-options"]}`);
    }
    recordFigure({ section: "open door", row: "3 security headers", tried: paths.length, passed: paths.length - failures.length, unit: "pages", failures });
    expect(failures).toEqual([]);
  });

  it("5. next= after login is a path on this server or /; CR/LF is answered", async () => {
    const nexts = [
      "/%09/evil.example/phish",
      "//evil.example",
      "/\\evil.example",
      "https://evil.example",
      "/%2F/evil.example",
      "/x%0d%0aSet-Cookie:%20a=b",
      "/\t/evil.example",
    ];
    const failures: string[] = [];
    const origin = `http://127.0.0.1:${guarded.port}`;
    for (const next of nexts) {
      const body = new URLSearchParams({ token: TOKEN, next }).toString();
      const r = await request(guarded.url, "POST", "/login", { origin, "content-type": "application/x-www-form-urlencoded" }, body);
      const loc = String(r.headers.location ?? "");
      const landed = new URL(loc, "http://127.0.0.1:1");
      if (r.status !== 303 || landed.host !== "127.0.0.1:1" || /[\t\r\n]/.test(loc)) failures.push(`${JSON.stringify(next)} -> ${r.status} ${loc}`);
    }
    recordFigure({
      section: "open door",
      row: "5 open redirect after login",
      tried: nexts.length,
      passed: nexts.length - failures.length,
      unit: "kept local",
      failures,
    });
    expect(failures).toEqual([]);
  });

  it("6. wrong logins and wrong bearer tokens are limited per address (429); a short IC_TOKEN is refused; logout ends the session", async () => {
    const failures: string[] = [];
    const origin = `http://127.0.0.1:${guarded.port}`;
    let tried = 0;
    // A session from a right login works, and stops working after logout.
    const login = await request(
      guarded.url,
      "POST",
      "/login",
      { origin, "content-type": "application/x-www-form-urlencoded" },
      new URLSearchParams({ token: TOKEN, next: "/" }).toString(),
    );
    const cookie = String((login.headers["set-cookie"] ?? [])[0] ?? "").split(";")[0];
    const again = await request(
      guarded.url,
      "POST",
      "/login",
      { origin, "content-type": "application/x-www-form-urlencoded" },
      new URLSearchParams({ token: TOKEN, next: "/" }).toString(),
    );
    const cookie2 = String((again.headers["set-cookie"] ?? [])[0] ?? "").split(";")[0];
    tried += 3;
    if (!cookie || cookie === cookie2 || cookie.includes(TOKEN)) failures.push(`session cookies not fresh per login: ${cookie} / ${cookie2}`);
    if ((await request(guarded.url, "GET", "/api/models", { cookie })).status !== 200) failures.push("a fresh session was refused");
    await request(guarded.url, "POST", "/logout", { origin, cookie }, "");
    if ((await request(guarded.url, "GET", "/api/models", { cookie })).status !== 401) failures.push("the session still works after logout");
    if ((await request(guarded.url, "GET", "/api/models", { cookie: cookie2 })).status !== 200) failures.push("logout ended another session");

    const statuses: number[] = [];
    for (let i = 0; i < 15; i++) {
      const r = await request(
        guarded.url,
        "POST",
        "/login",
        { origin, "content-type": "application/x-www-form-urlencoded" },
        new URLSearchParams({ token: `wrong-${i}` }).toString(),
      );
      statuses.push(r.status);
      if (r.status === 429 && !/try again in \d+ s/.test(r.body)) failures.push(`429 without a retry time: ${r.body}`);
    }
    tried++;
    if (statuses.slice(0, 10).some((s) => s === 429) || statuses.slice(10).some((s) => s !== 429)) failures.push(`wrong logins: ${statuses.join(",")}`);
    tried++;
    const right = await request(guarded.url, "GET", "/api/models", { authorization: `Bearer ${TOKEN}` });
    if (right.status !== 429 || !right.headers["retry-after"]) failures.push(`the right token while limited: ${right.status}`);
    tried++;
    const short = await spawnStudio({ IC_DB: locked.db, IC_TOKEN: "short-token" }, { expectExit: true });
    const code = await short.exited;
    if (code === 0 || !/at least 32/.test(short.logs())) failures.push(`a 11-character IC_TOKEN started: ${short.logs().slice(-200)}`);
    recordFigure({
      section: "open door",
      row: "6 sessions, logout, rate limit, token length",
      tried,
      passed: tried - failures.length,
      unit: "held",
      extra: { "wrong logins before 429": statuses.indexOf(429) },
      failures,
    });
    expect(failures).toEqual([]);
  }, 120_000);

  it("7. a 200 MB body is refused before it is read, and does not grow the server", async () => {
    const failures: string[] = [];
    const origin = `http://127.0.0.1:${studio.port}`;
    const pid = studio.child.pid!;
    const before = rssOf(pid);
    const total = 200 * 1024 * 1024;
    const probes: Array<[string, Record<string, string>]> = [
      ["/api/episodes/import", { origin, "content-type": "multipart/form-data; boundary=x" }],
      ["/api/models", { origin, "content-type": "application/json" }],
    ];
    const answers = await Promise.all([...probes, ...probes].map(([p, h]) => bigBody(studio.url, p, total, h)));
    for (const [i, a] of answers.entries()) {
      if (a.status !== 413) failures.push(`${probes[i % 2][0]}: ${a.status || "no answer"}`);
      else if (a.sentMb > 1) failures.push(`${probes[i % 2][0]}: refused only after ${a.sentMb} MB were sent`);
    }
    const grew = rssOf(pid) - before;
    if (grew > 64 * 1024 * 1024) failures.push(`the server grew by ${Math.round(grew / 1e6)} MB`);
    const chunked = await new Promise<number>((resolve) => {
      const u = new URL(studio.url);
      const r = http.request(
        {
          host: u.hostname,
          port: u.port,
          method: "POST",
          path: "/api/models",
          headers: { origin, "content-type": "application/json", "transfer-encoding": "chunked" },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      r.on("error", () => resolve(0));
      r.write("{");
    });
    if (chunked !== 411) failures.push(`chunked body without a length: ${chunked}`);
    recordFigure({
      section: "open door",
      row: "7 200 MB bodies (x4 at once) + chunked",
      tried: 5,
      passed: 5 - failures.length,
      unit: "refused",
      extra: { "rss growth MB": Math.round(grew / 1e6) },
      failures,
    });
    expect(failures).toEqual([]);
  }, 120_000);

  it("7b. a 45 MB import leaves other requests and the websocket answering", async () => {
    const failures: string[] = [];
    const origin = `http://127.0.0.1:${studio.port}`;
    // One file of 16,000 episodes (45 MB): before, its parse and its store held the event loop 1.5-4 s.
    const lines: string[] = [];
    for (let i = 0; i < 16_000; i++) {
      const id = `0190b000-0000-7000-8000-${i.toString(16).padStart(12, "0")}`;
      lines.push(
        JSON.stringify({
          format: "icstudio.episode",
          version: 1,
          id,
          environment: "bash",
          dataset: "open-door-stall",
          taskId: String(i),
          query: `count the files, variant ${i}`,
          gold: "ls | wc -l",
          playerKind: "model",
          model: "m",
          policy: "try-again",
          turnLimit: 10,
          mode: "eval",
          status: "submitted",
          reward: 0,
          success: false,
          startedAt: new Date().toISOString(),
          turns: [
            { index: 0, actor: "model", action: `ls -la /tmp/${i}`, observation: `total ${i}\n`.repeat(260) },
            { index: 1, actor: "model", action: "submit", observation: "" },
          ],
        }),
      );
    }
    const boundary = "----stall";
    const form = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="stall.jsonl"\r\n\r\n${lines.join("\n")}\n\r\n--${boundary}--\r\n`,
    );
    let finished = false;
    const imported = request(studio.url, "POST", "/api/episodes/import", { origin, "content-type": `multipart/form-data; boundary=${boundary}` }, form).finally(
      () => (finished = true),
    );
    const waits: number[] = [];
    let wsWait = -1;
    const ws = (async () => {
      await new Promise((r) => setTimeout(r, 400));
      const t0 = Date.now();
      const c = await connectWs(studio.url, { origin });
      wsWait = Date.now() - t0;
      c.close();
    })();
    while (!finished) {
      const t0 = Date.now();
      const r = await request(studio.url, "GET", "/api/episodes?limit=1");
      if (!finished) waits.push(Date.now() - t0);
      if (r.status !== 200) failures.push(`GET /api/episodes during the import: ${r.status}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    await ws;
    const res = await imported;
    const files = JSON.parse(res.body).files as { added: number }[];
    if (res.status !== 200 || files[0]?.added !== 16_000) failures.push(`the import: ${res.status} ${res.body.slice(0, 200)}`);
    const longest = Math.max(0, ...waits);
    // Not a speed figure (those are in the benchmarks): a held event loop answers nothing for the
    // whole parse and store (2.7 s here before, in one piece, and more on a loaded machine); an
    // answering one waits only while it takes in the 45 MB body (0.2-1 s on a loaded 2-core machine).
    if (waits.length < 5) failures.push(`only ${waits.length} requests were answered while the import ran`);
    if (longest > 2_000) failures.push(`a request waited ${longest} ms while the import ran`);
    if (wsWait < 0 || wsWait > 2_000) failures.push(`the websocket opened in ${wsWait} ms while the import ran`);
    recordFigure({
      section: "open door",
      row: "7b 45 MB import: other requests answered",
      tried: 3,
      passed: 3 - Math.min(3, failures.length),
      unit: "answered",
      extra: { "requests during import": waits.length, "longest wait ms": longest, "ws open ms": wsWait },
      failures,
    });
    expect(failures).toEqual([]);
  }, 180_000);

  it("8. the replay renders a 200,000-line observation and a 500 KB write-up (cut, with show all)", async () => {
    const failures: string[] = [];
    const origin = `http://127.0.0.1:${studio.port}`;
    const huge = Array.from({ length: 200_000 }, (_, i) => `line ${i}`).join("\n");
    const writeup = "Write-up. ".repeat(51_200);
    const ids = ["0190a000-0000-7000-8000-0000000000a1", "0190a000-0000-7000-8000-0000000000a2"];
    const episode = (id: string, observation: string, gold: string) => ({
      format: "icstudio.episode",
      version: 1,
      id,
      environment: "bash",
      dataset: "open-door",
      taskId: id.slice(-2),
      query: "list files",
      gold,
      goldObservation: "line 0\ngold\n",
      agentObservation: observation,
      playerKind: "model",
      model: "m",
      policy: "try-again",
      turnLimit: 10,
      mode: "eval",
      status: "submitted",
      reward: 0,
      success: false,
      startedAt: new Date().toISOString(),
      turns: [
        { index: 0, actor: "model", action: "seq 200000", observation },
        { index: 1, actor: "model", action: "submit", observation: "" },
      ],
    });
    const jsonl = [JSON.stringify(episode(ids[0], huge, "seq 2")), JSON.stringify(episode(ids[1], "ok", writeup))].join("\n") + "\n";
    const boundary = "----opendoor";
    const form = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.jsonl"\r\nContent-Type: application/x-ndjson\r\n\r\n${jsonl}\r\n--${boundary}--\r\n`;
    const imported = await request(studio.url, "POST", "/api/episodes/import", { origin, "content-type": `multipart/form-data; boundary=${boundary}` }, form);
    expect(imported.status, imported.body.slice(0, 300)).toBe(200);
    for (const [id, label] of [
      [ids[0], "200,000-line observation"],
      [ids[1], "500 KB write-up"],
    ]) {
      const t0 = Date.now();
      const r = await request(studio.url, "GET", `/episodes/${id}`, { accept: "text/html" });
      const ms = Date.now() - t0;
      const visible = r.body.replace(/<script[\s\S]*?<\/script>/g, "");
      if (r.status !== 200) failures.push(`${label}: HTTP ${r.status}`);
      else if (!/data-testid="show-all"/.test(visible)) failures.push(`${label}: rendered without a cut (${visible.length} bytes of markup)`);
      else if (ms > 20_000) failures.push(`${label}: ${ms} ms`);
    }
    recordFigure({ section: "open door", row: "8 replay of large episodes", tried: 2, passed: 2 - failures.length, unit: "rendered", failures });
    expect(failures).toEqual([]);
  }, 180_000);

  it("3. a page on another port, in Chromium, cannot post to the Studio nor frame it", async () => {
    const failures: string[] = [];
    const target = studio.url;
    // The attacker's page: a text/plain form post (no preflight), a fetch, and an iframe of /models.
    const page = `<!doctype html><html><body>
      <form id="f" method="POST" action="${target}/api/models" enctype="text/plain" target="sink"><input name='{"provider":"openai-compatible","model":"m","id":"xport","baseURL":"http://127.0.0.1:9/v1","x":"' value='"}'></form>
      <iframe name="sink"></iframe>
      <iframe id="frame" src="${target}/models"></iframe>
      <script>
        window.results = {};
        fetch("${target}/api/models", { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body: JSON.stringify({ provider: "openai-compatible", model: "m", id: "xport2", baseURL: "http://127.0.0.1:9/v1" }) })
          .then(() => (window.results.fetch = "sent"), (e) => (window.results.fetch = String(e)));
        document.getElementById("f").submit();
      </script></body></html>`;
    const evil = http.createServer((_q, r) => r.writeHead(200, { "content-type": "text/html" }).end(page));
    await new Promise<void>((r) => evil.listen(0, "127.0.0.1", () => r()));
    const evilUrl = `http://127.0.0.1:${(evil.address() as import("node:net").AddressInfo).port}/`;
    let tried = 0;
    if (fs.existsSync(config().chromium)) {
      const b = await launchBrowser();
      try {
        const tab = await b.browser.newPage();
        await tab.goto(evilUrl);
        await tab.waitForTimeout(1500);
        tried += 2;
        const models = await request(studio.url, "GET", "/api/models");
        for (const id of ["xport", "xport2"]) if (models.body.includes(`"${id}"`)) failures.push(`the page on another port added model ${id}`);
        tried++;
        const framed = tab.frames().find((f) => f.url().startsWith(`${target}/models`));
        const framedText = framed ? await framed.evaluate(() => document.body?.innerText ?? "").catch(() => "") : "";
        if (/Models|models/.test(framedText)) failures.push("/models rendered inside the foreign page's iframe");
        // The Studio's own pages still work under the CSP: Monaco loads in the playground.
        tried++;
        const own = await b.browser.newPage();
        const cspErrors: string[] = [];
        own.on("console", (m) => {
          if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text().slice(0, 160));
        });
        await own.goto(`${target}/play/python/${encodeURIComponent("demo-python:reverse-words")}`, { waitUntil: "load" });
        await own.waitForSelector(".monaco-editor", { timeout: 30_000 }).catch(() => failures.push("Monaco did not load under the CSP"));
        if (cspErrors.length) failures.push(`CSP violations on the Studio's own page: ${cspErrors.join(" | ")}`);
      } finally {
        await b.close();
      }
    }
    evil.close();
    recordFigure({ section: "open door", row: "3 cross-port page in Chromium", tried, passed: tried - failures.length, unit: "held", failures });
    expect(tried).toBeGreaterThan(0);
    expect(failures).toEqual([]);
  }, 120_000);

  it("4. twelve concurrent opens on one connection stay within IC_MAX_SANDBOXES=4", async () => {
    const pid = studio.child.pid!;
    /** Sandboxes: bwrap processes whose parent is not bwrap, below the server. */
    const sandboxes = () => {
      const procs = fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d));
      const info = new Map<number, { comm: string; ppid: number }>();
      for (const d of procs) {
        try {
          const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
          const m = /^\d+ \((.*)\) \S (\d+)/.exec(stat);
          if (m) info.set(Number(d), { comm: m[1], ppid: Number(m[2]) });
        } catch {
          /* gone */
        }
      }
      const below = (p: number): boolean => {
        for (let q = info.get(p)?.ppid; q; q = info.get(q)?.ppid) if (q === pid) return true;
        return false;
      };
      let n = 0;
      for (const [p, i] of info) if (i.comm === "bwrap" && info.get(i.ppid)?.comm !== "bwrap" && below(p)) n++;
      return n;
    };
    const c = await connectWs(studio.url);
    let peak = 0;
    const watch = setInterval(() => (peak = Math.max(peak, sandboxes())), 25);
    const answered = () => c.raw.filter((r) => ["opened", "error"].includes((JSON.parse(r) as { type: string }).type)).length;
    for (let i = 0; i < 12; i++) c.send({ type: "open", env: "python", taskRef: "demo-python:reverse-words", mode: "play", feedback: "reward" });
    const t0 = Date.now();
    while (answered() < 12 && Date.now() - t0 < 90_000) await new Promise((r) => setTimeout(r, 50));
    clearInterval(watch);
    peak = Math.max(peak, sandboxes());
    c.close();
    const failures: string[] = [];
    if (answered() < 12) failures.push(`only ${answered()} of 12 opens answered: ${c.raw.slice(-3).join(" ")}`);
    if (peak > 4) failures.push(`${peak} sandboxes were live at once`);
    recordFigure({
      section: "open door",
      row: "4 concurrent opens vs IC_MAX_SANDBOXES=4",
      tried: 12,
      passed: failures.length ? 0 : 12,
      unit: "within the cap",
      extra: { "peak sandboxes": peak },
      failures,
    });
    expect(failures).toEqual([]);
  }, 120_000);

  it("9. a key the provider echoes is redacted everywhere it is stored or shown", async () => {
    const KEY = "sk-echoed-0123456789abcdefghijklmnopq";
    const echo = http.createServer((q, r) => {
      r.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: `bad key ${q.headers.authorization}` } }));
    });
    await new Promise<void>((r) => echo.listen(0, "127.0.0.1", () => r()));
    const base = `http://127.0.0.1:${(echo.address() as import("node:net").AddressInfo).port}/v1`;
    const origin = `http://127.0.0.1:${studio.port}`;
    const json = { origin, "content-type": "application/json" };
    const failures: string[] = [];
    const added = await request(
      studio.url,
      "POST",
      "/api/models",
      json,
      JSON.stringify({ provider: "openai-compatible", model: "m", id: "echo", baseURL: base, apiKey: KEY }),
    );
    if (added.status >= 300) failures.push(`adding the model: ${added.status} ${added.body.slice(0, 200)}`);
    const tested = await request(studio.url, "POST", "/api/models/echo/test", json, "{}");
    if (tested.body.includes(KEY)) failures.push("the test's answer holds the key");
    if (!/redacted key/.test(tested.body)) failures.push(`the test's answer: ${tested.body.slice(0, 200)}`);
    for (const p of ["/api/models", "/models"])
      if ((await request(studio.url, "GET", p, { accept: "text/html" })).body.includes(KEY)) failures.push(`${p} shows the key`);
    const file = `${open.dir}/models.added.json`;
    if (!fs.existsSync(file)) failures.push(`no ${file}`);
    else {
      if (fs.readFileSync(file, "utf8").includes(KEY)) failures.push("models.added.json holds the key");
      if ((fs.statSync(file).mode & 0o777) !== 0o600) failures.push(`models.added.json is ${(fs.statSync(file).mode & 0o777).toString(8)}`);
    }
    const self = await request(
      studio.url,
      "POST",
      "/api/models",
      json,
      JSON.stringify({ provider: "openai-compatible", model: "m", id: "self", baseURL: `http://127.0.0.1:${studio.port}/api` }),
    );
    if (self.status !== 400 || !/own address/.test(self.body)) failures.push(`the Studio's own address: ${self.status} ${self.body.slice(0, 160)}`);
    echo.close();
    recordFigure({ section: "open door", row: "9 echoed key, 0600, own address", tried: 6, passed: 6 - failures.length, unit: "held", failures });
    expect(failures).toEqual([]);
  }, 60_000);

  it("10. SIGTERM unmounts every sandbox the server mounted", async () => {
    const db = tempDb("ic-open-door-term-");
    const p = await spawnStudio({ IC_DB: db.db, IC_TOKEN: "", IC_LOCAL_POOL: "2" });
    const mine = () =>
      fs
        .readFileSync("/proc/mounts", "utf8")
        .split("\n")
        .filter((l) => l.includes(`ic-sandbox-${p.child.pid}-`)).length;
    const c = await connectWs(p.url);
    c.send({ type: "open", env: "python", taskRef: "demo-python:reverse-words", mode: "play", feedback: "reward" });
    await c.next("opened", 60_000);
    await new Promise((r) => setTimeout(r, 1500)); // the warm pool refills
    const before = mine();
    await p.stop(20_000);
    const after = mine();
    fs.rmSync(db.dir, { recursive: true, force: true });
    const failures = after > 0 ? [`${after} of ${before} mounts left after SIGTERM`] : [];
    recordFigure({ section: "open door", row: "10 SIGTERM unmounts", tried: before, passed: before - after, unit: "unmounted", failures });
    expect(before).toBeGreaterThan(0);
    expect(after).toBe(0);
  }, 120_000);
});
