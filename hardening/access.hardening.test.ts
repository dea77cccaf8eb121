/**
 * Access: off loopback without a token the server refuses to start; with a token, every page,
 * API route (every method it exports) and the websocket reject requests without it. The routes
 * are found on the file system at test time, so a new route is walked without editing this test.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordFigure } from "./figures";

const canRun = appAvailable();
if (!canRun)
  recordFigure({
    section: "access",
    row: "requests without the token",
    tried: 0,
    passed: 0,
    unit: "skipped: no production build (next build, or IC_HARDENING_BUILD=1)",
  });
import { appRoutes } from "./routes";
import { appAvailable, ensureApp } from "./studio-process";
import { spawnStudio, type StudioProcess } from "@/lib/testing/studio-server";
import { connectWs, tempDb } from "@/lib/testing/ws-client";

const TOKEN = `hardening-token-${process.pid}-0123456789abcdefghij`;

const { dir, db } = tempDb("ic-hardening-access-");
let server: StudioProcess | null = null;
afterAll(async () => {
  await server?.kill("SIGTERM");
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("access", () => {
  it("refuses to start off loopback without a token", async () => {
    const p = await spawnStudio({ IC_HOST: "0.0.0.0", IC_TOKEN: "", IC_DB: db }, { expectExit: true });
    const code = await p.exited;
    const ok = code !== 0 && /token/i.test(p.logs()) && !/ready on/.test(p.logs());
    recordFigure({ section: "access", row: "0.0.0.0 without IC_TOKEN", tried: 1, passed: ok ? 1 : 0, unit: "refused", extra: { exit: String(code) } });
    expect(code).not.toBe(0);
    expect(p.logs()).toMatch(/token/i);
    expect(p.logs()).not.toMatch(/ready on/);
  }, 120_000);

  describe.skipIf(!canRun)("with a token", () => {
    beforeAll(async () => {
      ensureApp();
      server = await spawnStudio({ IC_HOST: "0.0.0.0", IC_TOKEN: TOKEN, IC_DB: db });
    }, 900_000);

    it("every page, route and method rejects requests without it (and answers with it)", async () => {
      const routes = appRoutes();
      expect(routes.length).toBeGreaterThan(20);
      const failures: string[] = [];
      let checked = 0;
      let answeredWithToken = 0;
      const publicPaths = new Set(["/login"]);
      const variants = (u: string) => [
        u,
        `${u}${u.endsWith("/") ? "" : "/"}`,
        `${u}?x=1`,
        u.replace(/^\//, "//"),
        `/login/..${u}`,
        `/login/%2e%2e${u}`,
        u.toUpperCase(),
      ];
      for (const r of routes) {
        if (publicPaths.has(r.url)) continue;
        for (const method of r.methods) {
          for (const url of variants(r.url)) {
            for (const accept of ["text/html", "application/json", "*/*"]) {
              checked++;
              const res = await fetch(`${server!.url}${url}`, {
                method,
                redirect: "manual",
                headers: { accept, "content-type": "application/json" },
                body: ["POST", "PUT", "PATCH", "DELETE"].includes(method) ? "{}" : undefined,
              });
              const body = await res.text();
              const toLogin = res.status >= 300 && res.status < 400 && /^\/login/.test(new URL(res.headers.get("location") ?? "", server!.url).pathname);
              const rejected = res.status === 401 || res.status === 403 || toLogin || ((res.status === 404 || res.status === 400) && url !== r.url);
              if (!rejected) failures.push(`${method} ${url} (${accept}) → ${res.status}: ${body.slice(0, 80)}`);
              if (rejected && res.status !== 404 && body.length > 2000) failures.push(`${method} ${url} → rejected but sent ${body.length} bytes`);
            }
          }
        }
        const withToken = await fetch(`${server!.url}${r.url}`, {
          method: r.methods[0],
          redirect: "manual",
          headers: { authorization: `Bearer ${TOKEN}`, accept: "text/html" },
        });
        if (withToken.status !== 401) answeredWithToken++;
        else failures.push(`${r.methods[0]} ${r.url} with the token → 401`);
      }
      // The websocket: no token, a wrong token, the token in the query string (not accepted).
      for (const [label, headers, suffix] of [
        ["no token", {}, ""],
        ["wrong token", { authorization: "Bearer nope" }, ""],
      ] as const) {
        checked++;
        const err = await connectWs(server!.url + suffix, headers as Record<string, string>).then(
          (c) => {
            c.close();
            return null;
          },
          (e: Error) => e,
        );
        if (!err || !/401|403/.test(err.message)) failures.push(`websocket with ${label} was not refused: ${err?.message ?? "connected"}`);
      }
      const ok = await connectWs(server!.url, { authorization: `Bearer ${TOKEN}` });
      ok.close();
      recordFigure({
        section: "access",
        row: "requests without the token",
        tried: checked,
        passed: checked - failures.length,
        unit: "rejected",
        extra: { routes: routes.length, "answered with token": answeredWithToken },
        failures,
      });
      expect(failures).toEqual([]);
    }, 600_000);
  });
});
