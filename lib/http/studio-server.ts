import "server-only";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { handlePlaygroundConnection, WS_MAX_PAYLOAD } from "@/lib/live/ws-server";
import {
  bodyLimitFor,
  contentTypeReason,
  crossOriginReason,
  hostAllowed,
  isLoopbackHost,
  isStateChanging,
  mayReach,
  parseCookies,
  resolveAccess,
  safeEqual,
  safeNext,
  stampAccess,
  wantsLoginPage,
  type HostSettings,
} from "./auth";
import { FailureLimiter } from "./rate-limit";
import { clearedSessionCookie, endSession, SESSION_COOKIE, sessionCookie, startSession, type Principal } from "./sessions";
import type { LiveEpisodeManager } from "@/lib/live/live-episodes";
import { participantEpisodes } from "./participant-access";
import { handleInvite } from "./invite-page";
import type { Access } from "./auth";

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
  /** The Host names answered besides loopback ones (default: bound to 127.0.0.1, none more). */
  hosts?: HostSettings;
  /** The dev server (its pages need eval and its own websocket in the CSP). */
  dev?: boolean;
  /** Failed-credential limiter (default: 10 failures a minute per address). */
  limiter?: FailureLimiter;
}

/**
 * Headers every response carries: no framing by another site, no content sniffing, a CSP the
 * pages pass (Next.js's inline bootstrap scripts and Monaco's inline styles and worker included),
 * no referrer to other sites.
 */
export function securityHeaders(dev = false): Record<string, string> {
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "worker-src 'self' blob:",
    "frame-ancestors 'none'",
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join("; ");
  return {
    "content-security-policy": csp,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
  };
}

function sendJson(res: ServerResponse, status: number, code: string, message: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...extra });
  res.end(JSON.stringify({ error: { code, message } }));
}

function clientAddress(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? "unknown";
}

/**
 * The HTTP server in front of Next.js: the one place where access is checked (every request and
 * every websocket upgrade: Host, Origin, body type and size, who is asking), login and logout,
 * and the playground websocket on the same port.
 */
export function createStudioServer(opts: StudioServerOptions): { server: http.Server; wss: WebSocketServer } {
  const wsPath = opts.wsPath ?? "/ws";
  const hosts: HostSettings = opts.hosts ?? { bindHost: "127.0.0.1", allowedHosts: [] };
  const limiter = opts.limiter ?? new FailureLimiter();
  const headers = securityHeaders(opts.dev);
  const wss = new WebSocketServer({ noServer: true, maxPayload: WS_MAX_PAYLOAD, perMessageDeflate: false });
  // Who opened each websocket (set at the upgrade): a participant's messages pass their rules.
  const upgradedBy = new WeakMap<IncomingMessage, Access | null>();
  wss.on("connection", (ws: WebSocket, req: IncomingMessage) => {
    const access = upgradedBy.get(req) ?? null;
    if (access?.role === "participant" && access.sessionId) {
      return handlePlaygroundConnection(ws, participantEpisodes(opts.manager, { sessionId: access.sessionId, participantId: access.participantId }));
    }
    if (access?.role === "participant") return ws.close(1008, "access ended");
    handlePlaygroundConnection(ws, opts.manager);
  });

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

  const serve = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    const url = requestUrl(req);
    if (!url) return sendJson(res, 400, "bad_input", `request target ${JSON.stringify(req.url)} is not a valid path`);
    if (!hostAllowed(req.headers.host, hosts)) {
      return sendJson(
        res,
        421,
        "unauthorized",
        `Host ${JSON.stringify(req.headers.host ?? "")} is not a name this server answers to (add it to IC_ALLOWED_HOSTS if a proxy forwards it)`,
      );
    }
    const method = (req.method ?? "GET").toUpperCase();
    if (isStateChanging(method)) {
      const cross = crossOriginReason(req);
      if (cross) return sendJson(res, 403, "unauthorized", `cross-site request refused: ${cross}`);
      const sized = bodySizeProblem(req, bodyLimitFor(url.pathname));
      if (sized) {
        res.setHeader("connection", "close");
        return sendJson(res, sized.status, sized.status === 413 ? "limit_reached" : "bad_input", sized.message);
      }
    }
    const address = clientAddress(req);
    const isInvite = url.pathname.startsWith("/invite/");
    const carriesCredentials = req.headers.authorization !== undefined || (url.pathname === "/login" && method === "POST") || isInvite;
    const wait = limiter.retryAfter(address);
    if (wait > 0 && carriesCredentials) {
      return sendJson(res, 429, "limit_reached", `too many failed logins or tokens from ${address}: try again in ${wait} s`, { "retry-after": String(wait) });
    }
    const { access, failed, staleCookie } = await resolveAccess(req, opts.token);
    if (failed) limiter.fail(address);
    if (url.pathname === "/login" && method === "POST") return handleLogin(req, res, opts.token, limiter, address);
    if (url.pathname === "/logout" && method === "POST") return handleLogout(req, res, opts.token);
    if (isInvite && (method === "GET" || method === "HEAD")) return handleInvite(req, res, url, { limiter, address, secure: secureRequest(req) });
    if (!mayReach(access, method, url, wsPath)) {
      if (wantsLoginPage(req, url.pathname) && !access) {
        res.writeHead(303, {
          location: `/login?next=${encodeURIComponent(url.pathname + url.search)}`,
          "cache-control": "no-store",
          ...(staleCookie ? { "set-cookie": clearedSessionCookie(secureRequest(req)) } : {}),
        });
        res.end();
        return;
      }
      if (access?.role === "participant" && !access.scope) {
        if (wantsLoginPage(req, url.pathname)) return sendAccessEnded(res);
        return sendJson(res, 401, "unauthorized", "your access to this study has ended (the invite was revoked or expired, or the study closed)");
      }
      if (access) return sendJson(res, 403, "forbidden", `${method} ${url.pathname} is not open to a ${access.role}`);
      return sendJson(res, 401, "unauthorized", "a valid token is required: log in at /login or send Authorization: Bearer <token>", {
        "www-authenticate": "Bearer",
      });
    }
    // Who may not ask hears 401 first; then a body of the wrong type is refused.
    const type = contentTypeReason(req, url.pathname);
    if (type) return sendJson(res, 415, "bad_input", type);
    stampAccess(req, access, secureRequest(req));
    await opts.handle(req, res);
  };

  const server = http.createServer((req, res) => {
    serve(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(`internal error: ${(err as Error).message}`);
    });
  });

  const refuseUpgrade = (socket: Duplex, status: string) => socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);

  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    void (async () => {
      const url = requestUrl(req);
      if (!url) return refuseUpgrade(socket, "400 Bad Request");
      if (!hostAllowed(req.headers.host, hosts)) return refuseUpgrade(socket, "421 Misdirected Request");
      // A browser's websocket carries an Origin; it must be this server's own page. Clients
      // without one (CLI, bench) pass.
      if (crossOriginReason({ headers: { host: req.headers.host, origin: req.headers.origin } })) return refuseUpgrade(socket, "403 Forbidden");
      const address = clientAddress(req);
      if (limiter.retryAfter(address) > 0 && req.headers.authorization !== undefined) return refuseUpgrade(socket, "429 Too Many Requests");
      const { access, failed } = await resolveAccess(req, opts.token);
      if (failed) limiter.fail(address);
      if (!mayReach(access, "GET", url, wsPath)) return refuseUpgrade(socket, access?.scope ? "403 Forbidden" : "401 Unauthorized");
      stampAccess(req, access);
      upgradedBy.set(req, access);
      if (url.pathname === wsPath) {
        wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req));
        return;
      }
      if (opts.upgrade) return void (await opts.upgrade(req, socket, head));
      refuseUpgrade(socket, "404 Not Found");
    })().catch(() => socket.destroy());
  });

  server.on("close", () => {
    clearInterval(heartbeat);
    for (const ws of wss.clients) ws.terminate();
    wss.close();
  });

  return { server, wss };
}

/**
 * Refuses a body before reading it: one longer than the path's limit (413), or one without a
 * declared length (411; browsers and fetch always declare it), so the limit holds however the
 * body arrives. Node's parser never delivers more than the declared length.
 */
function bodySizeProblem(req: IncomingMessage, limit: number): { status: 411 | 413; message: string } | null {
  const declared = req.headers["content-length"];
  if (declared === undefined) {
    if (req.headers["transfer-encoding"] === undefined) return null;
    return { status: 411, message: "send the body with a Content-Length (chunked request bodies are not accepted)" };
  }
  const n = Number(declared);
  if (!Number.isSafeInteger(n) || n < 0) return { status: 411, message: `Content-Length ${JSON.stringify(declared)} is not a length` };
  if (n > limit) return { status: 413, message: `the body is ${n} bytes; this path takes at most ${limit}` };
  return null;
}

/** The page a participant whose access ended sees instead of any page. */
function sendAccessEnded(res: ServerResponse): void {
  res.writeHead(401, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  res.end(
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Access ended · InterCode Studio</title></head><body style="font-family:sans-serif;background:#09090b;color:#e4e4e7;max-width:40rem;margin:4rem auto"><main><h1>Your access has ended</h1><p data-testid="access-ended">The study\'s researcher withdrew this invite, it expired, or the study closed. If you think this is a mistake, ask the researcher for a new link.</p></main></body></html>',
  );
}

/**
 * Whether the browser reached this server over TLS: the socket itself is TLS, or a reverse proxy
 * on this machine (a loopback peer; docs/reverse-proxy.md) says so in X-Forwarded-Proto. The
 * header from any other peer is ignored: anyone can send it.
 */
export function secureRequest(req: Pick<IncomingMessage, "headers" | "socket">): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted) return true;
  const proto = String(req.headers["x-forwarded-proto"] ?? "")
    .split(",")[0]
    .trim()
    .toLowerCase();
  return proto === "https" && isLoopbackHost(String(req.socket.remoteAddress ?? "").replace(/^::ffff:/, ""));
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

/**
 * Who a login form's `token` signs in as: the owner when it is IC_TOKEN, else nobody. (Studies
 * with participants add their own codes here.)
 */
async function principalForLogin(given: string, token: string): Promise<Principal | null> {
  return safeEqual(given, token) ? { role: "owner" } : null;
}

/** POST /login with `token` (and `next`), form-encoded or JSON: starts a session and sets its cookie. */
async function handleLogin(req: IncomingMessage, res: ServerResponse, token: string | null, limiter: FailureLimiter, address: string): Promise<void> {
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
  const principal = await principalForLogin(given, token);
  if (!principal) {
    limiter.fail(address);
    res.writeHead(303, { location: `/login?error=1&next=${encodeURIComponent(next)}`, "cache-control": "no-store" });
    res.end();
    return;
  }
  const { secret } = await startSession(principal);
  res.writeHead(303, { location: next, "set-cookie": sessionCookie(secret, secureRequest(req)), "cache-control": "no-store" });
  res.end();
}

/** POST /logout: ends the request's session (the cookie stops working everywhere) and clears the cookie. */
async function handleLogout(req: IncomingMessage, res: ServerResponse, token: string | null): Promise<void> {
  req.resume();
  const secret = parseCookies(req.headers.cookie)[SESSION_COOKIE];
  if (secret) await endSession(secret);
  res.writeHead(303, { location: token ? "/login" : "/", "set-cookie": clearedSessionCookie(secureRequest(req)), "cache-control": "no-store" });
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
