import "server-only";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { handlePlaygroundConnection, WS_MAX_PAYLOAD } from "@/lib/ws/server";
import { authorizeRequest, safeEqual, safeNext, sessionCookie } from "./auth";
import type { LiveEpisodeManager } from "@/lib/playground/live-episodes";

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void | Promise<void>;

export interface StudioServerOptions {
  token: string | null;
  manager: LiveEpisodeManager;
  /** Next.js's request handler (or anything else serving pages). */
  handle: RequestHandler;
  /** Next.js's upgrade handler (HMR in dev); other upgrades are refused when absent. */
  upgrade?: UpgradeHandler;
  /** Path of the playground websocket. */
  wsPath?: string;
}

/**
 * The HTTP server in front of Next.js: the one place where access is checked (every request and
 * every websocket upgrade), the login POST, and the playground websocket on the same port.
 */
export function createStudioServer(opts: StudioServerOptions): { server: http.Server; wss: WebSocketServer } {
  const wsPath = opts.wsPath ?? "/ws";
  const wss = new WebSocketServer({ noServer: true, maxPayload: WS_MAX_PAYLOAD, perMessageDeflate: false });
  wss.on("connection", (ws: WebSocket) => handlePlaygroundConnection(ws, opts.manager));

  // Connections that stop answering pings are closed (their episodes stay live until idle).
  const alive = new WeakMap<WebSocket, boolean>();
  wss.on("connection", (ws) => {
    alive.set(ws, true);
    ws.on("pong", () => alive.set(ws, true));
  });
  const heartbeat = setInterval(() => {
    for (const ws of wss.clients) {
      if (!alive.get(ws)) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, 30_000);
  heartbeat.unref();

  const server = http.createServer((req, res) => {
    const url = requestUrl(req);
    if (!url) {
      res.writeHead(400, { "content-type": "application/json", "cache-control": "no-store" });
      res.end(JSON.stringify({ error: { code: "bad_input", message: `request target ${JSON.stringify(req.url)} is not a valid path` } }));
      return;
    }
    const decision = authorizeRequest(req, url.pathname, opts.token);
    if (!decision.allow) {
      if (decision.reason === "login") {
        res.writeHead(303, { location: `/login?next=${encodeURIComponent(url.pathname + url.search)}`, "cache-control": "no-store" });
        res.end();
      } else {
        res.writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer", "cache-control": "no-store" });
        res.end(JSON.stringify({ error: { code: "unauthorized", message: "a valid token is required: log in at /login or send Authorization: Bearer <token>" } }));
      }
      return;
    }
    if (url.pathname === "/login" && req.method === "POST") {
      void handleLogin(req, res, opts.token);
      return;
    }
    void Promise.resolve(opts.handle(req, res)).catch((err) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(`internal error: ${(err as Error).message}`);
    });
  });

  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = requestUrl(req);
    if (!url) {
      socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    const decision = authorizeRequest(req, url.pathname, opts.token);
    if (!decision.allow || (url.pathname === wsPath && !sameOrigin(req))) {
      socket.end(`HTTP/1.1 ${decision.allow ? "403 Forbidden" : "401 Unauthorized"}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    if (url.pathname === wsPath) {
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req));
      return;
    }
    if (opts.upgrade) {
      void opts.upgrade(req, socket, head);
      return;
    }
    socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
  });

  server.on("close", () => {
    clearInterval(heartbeat);
    for (const ws of wss.clients) ws.terminate();
    wss.close();
  });

  return { server, wss };
}

/**
 * A browser's websocket carries an Origin; it must name this server (a page on another site must
 * not drive a sandbox through a visitor's browser). Clients without Origin (CLI, bench) pass.
 */
function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (!origin) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

async function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw new Error("request body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** POST /login with `token` (and `next`), form-encoded or JSON: sets the session cookie. */
async function handleLogin(req: IncomingMessage, res: ServerResponse, token: string | null): Promise<void> {
  let given = "";
  let next = "/";
  try {
    const body = await readBody(req, 8 * 1024);
    if (String(req.headers["content-type"] ?? "").includes("application/json")) {
      const j = JSON.parse(body) as { token?: unknown; next?: unknown };
      given = typeof j.token === "string" ? j.token : "";
      next = typeof j.next === "string" ? j.next : "/";
    } else {
      const p = new URLSearchParams(body);
      given = p.get("token") ?? "";
      next = p.get("next") ?? "/";
    }
  } catch {
    res.writeHead(400, { "content-type": "text/plain" });
    res.end("bad login request");
    return;
  }
  next = safeNext(next);
  if (!token) {
    res.writeHead(303, { location: next });
    res.end();
    return;
  }
  if (!safeEqual(given, token)) {
    // A short pause makes guessing slow without holding a lock.
    await new Promise((r) => setTimeout(r, 300));
    res.writeHead(303, { location: `/login?error=1&next=${encodeURIComponent(next)}`, "cache-control": "no-store" });
    res.end();
    return;
  }
  const secure = req.headers["x-forwarded-proto"] === "https";
  res.writeHead(303, { location: next, "set-cookie": sessionCookie(token, secure), "cache-control": "no-store" });
  res.end();
}

/**
 * The request's URL, or null when its target is not a valid path: `new URL("//", base)` and the
 * like throw, and a throw in the request listener would leave the client without an answer.
 */
function requestUrl(req: IncomingMessage): URL | null {
  try {
    return new URL(req.url ?? "/", "http://localhost");
  } catch {
    return null;
  }
}
