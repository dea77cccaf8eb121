import "server-only";
import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import os from "node:os";
import { UnauthorizedError } from "@/lib/errors";
import { participantScope, type ParticipantScope } from "@/lib/studies/participants";
import { participantMayReach } from "./participant-access";
import { endedParticipantOf, lookupSession, SESSION_COOKIE, type LiveSession, type Principal } from "./sessions";

/**
 * The access rules of the whole app, applied in ONE place (lib/http/studio-server.ts) to every
 * HTTP request and websocket upgrade before Next.js or the websocket sees it:
 *   1. `Host` is one this server answers to (a rebound DNS name is not);
 *   2. a state-changing request comes from this server's own pages (`Origin`, else `Referer`);
 *   3. a JSON route's body is `application/json` (a form or text/plain post is refused);
 *   4. the request is resolved to who is asking (`resolveAccess`): the owner, a participant, or
 *      nobody; `mayReach` says whether that principal may reach the path.
 * With no token configured (loopback only) a request without a session is the owner's.
 */

export { SESSION_COOKIE };

/** Shortest IC_TOKEN accepted (characters). */
export const MIN_TOKEN_LENGTH = 32;

/** True for 127.0.0.0/8, ::1 and "localhost". */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) return h === "::1" || h === "0:0:0:0:0:0:0:1" || h.startsWith("::ffff:127.");
  return false;
}

/** Refuses a non-loopback bind without a token, and a token too short to resist guessing. */
export function assertSafeBind(host: string, token: string | null): void {
  if (!isLoopbackHost(host) && !token) {
    throw new UnauthorizedError(
      `IC_HOST=${host} is not a loopback address: set IC_TOKEN to a long random secret so that only people holding it can use the server`,
    );
  }
  if (token !== null && token.length < MIN_TOKEN_LENGTH) {
    throw new UnauthorizedError(
      `IC_TOKEN is ${token.length} characters long: use at least ${MIN_TOKEN_LENGTH} random characters (e.g. openssl rand -base64 32)`,
    );
  }
}

/** Constant-time string comparison (compares fixed-length digests of both). */
export function safeEqual(a: string, b: string): boolean {
  const da = createHmac("sha256", "ic-compare").update(a).digest();
  const db = createHmac("sha256", "ic-compare").update(b).digest();
  return timingSafeEqual(da, db) && a.length === b.length;
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i < 0) continue;
    const k = part.slice(0, i).trim();
    const v = part.slice(i + 1).trim();
    if (k && !(k in out)) {
      try {
        out[k] = decodeURIComponent(v);
      } catch {
        out[k] = v;
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// 1. Host

/** The host names a server answers to, besides loopback ones. */
export interface HostSettings {
  /** Where it listens (IC_HOST): a name or a specific address is accepted as Host. */
  bindHost: string;
  /** More names, for a reverse proxy (IC_ALLOWED_HOSTS). */
  allowedHosts: string[];
}

/** The host name of a Host header ("[::1]:3000" -> "::1", "Example.org." -> "example.org"), or null when malformed. */
export function hostnameOf(hostHeader: string): string | null {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(hostHeader.trim());
  if (!m) return null;
  return m[1]
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
}

function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "[::]" || host === "";
}

/** This machine's own addresses (a wildcard bind answers on each; an address cannot be rebound). */
function localAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) for (const a of list ?? []) out.add(a.address.toLowerCase().replace(/%.*$/, ""));
  return out;
}

/**
 * Whether a Host header names this server: a loopback name or address, the bind host (unless a
 * wildcard), an IC_ALLOWED_HOSTS name, or (on a wildcard bind) one of this machine's addresses.
 * Any other name may be a DNS name rebound to 127.0.0.1 by a page of that name.
 */
export function hostAllowed(hostHeader: string | undefined, settings: HostSettings): boolean {
  if (!hostHeader) return false;
  const name = hostnameOf(hostHeader);
  if (!name) return false;
  if (isLoopbackHost(name)) return true;
  const bind = settings.bindHost.replace(/^\[|\]$/g, "").toLowerCase();
  if (!isWildcard(bind) && name === bind) return true;
  if (settings.allowedHosts.some((h) => h.toLowerCase().replace(/\.$/, "") === name)) return true;
  return isWildcard(bind) && isIP(name) !== 0 && localAddresses().has(name);
}

// ---------------------------------------------------------------------------------------------
// 2. Origin

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Whether a method changes state (everything but GET, HEAD and OPTIONS). */
export function isStateChanging(method: string | undefined): boolean {
  return !SAFE_METHODS.has((method ?? "GET").toUpperCase());
}

/**
 * Why a request's `Origin` (or, without one, its `Referer`) is not this server's own, or null
 * when it is, or when it carries neither (a program, not a browser: browsers send Origin on every
 * cross-site POST). Same origin means the same host and port as the request's (checked) Host.
 */
export function crossOriginReason(req: Pick<IncomingMessage, "headers">): string | null {
  const host = String(req.headers.host ?? "").toLowerCase();
  const origin = req.headers.origin;
  const referer = req.headers.referer;
  const source = typeof origin === "string" ? { name: "Origin", value: origin } : typeof referer === "string" ? { name: "Referer", value: referer } : null;
  if (!source) return null;
  let sourceHost: string;
  try {
    const u = new URL(source.value);
    if (u.protocol !== "http:" && u.protocol !== "https:") return `${source.name} ${JSON.stringify(source.value)} is not a page of this server`;
    sourceHost = u.host.toLowerCase();
  } catch {
    return `${source.name} ${JSON.stringify(source.value)} is not a page of this server`;
  }
  // URL drops a default port; the Host header may carry it.
  const bare = host.replace(/:(80|443)$/, "");
  if (sourceHost !== host && sourceHost !== bare) return `${source.name} ${source.value} is another site than this server (${host})`;
  return null;
}

// ---------------------------------------------------------------------------------------------
// 3. Bodies

/** Routes whose body is a multipart form (file uploads); every other API route takes JSON. */
export const MULTIPART_ROUTES: ReadonlySet<string> = new Set(["/api/episodes/import"]);

/** Largest body a JSON route or the login form accepts (bytes). */
export const JSON_BODY_LIMIT = 4 * 1024 * 1024;

/** Largest body of a multipart upload route (bytes); the import route's per-file limit fits in it. */
export const UPLOAD_BODY_LIMIT = 64 * 1024 * 1024 + 64 * 1024;

/** The body limit of a path. */
export function bodyLimitFor(pathname: string): number {
  return MULTIPART_ROUTES.has(pathname) ? UPLOAD_BODY_LIMIT : JSON_BODY_LIMIT;
}

/** The media type of a Content-Type header ("application/json; charset=utf-8" -> "application/json"). */
export function mediaType(contentType: string | undefined): string {
  return String(contentType ?? "")
    .split(";")[0]
    .trim()
    .toLowerCase();
}

/**
 * Why a state-changing API request's body has the wrong type, or null. JSON routes take only
 * application/json (a browser sends text/plain, forms and multipart cross-site without asking
 * first); upload routes only multipart/form-data. A request without a body passes.
 */
export function contentTypeReason(req: Pick<IncomingMessage, "headers" | "method">, pathname: string): string | null {
  if (!isStateChanging(req.method) || !pathname.startsWith("/api/")) return null;
  const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
  if (!hasBody) return null;
  const type = mediaType(req.headers["content-type"]);
  const want = MULTIPART_ROUTES.has(pathname) ? "multipart/form-data" : "application/json";
  return type === want ? null : `${pathname} takes a ${want} body, not ${type ? JSON.stringify(type) : "one without a Content-Type"}`;
}

// ---------------------------------------------------------------------------------------------
// 4. Who is asking

/**
 * Who a request speaks for. `via` says how it was recognised: its session cookie, the bearer
 * token, or "open" (no token configured, no session: the loopback owner).
 */
export type Access = Principal & {
  via: "session" | "bearer" | "open";
  sessionId: string | null;
  /** A participant's study and tasks; null when their access ended (revoked, expired, study closed). */
  scope?: ParticipantScope | null;
};

/** What `resolveAccess` found; `failed` counts towards the address's rate limit. */
export type AccessResult = { access: Access | null; failed: boolean; staleCookie: boolean };

/**
 * Resolves a request to its principal: a live session cookie (owner or participant), else
 * `Authorization: Bearer <IC_TOKEN>` (the owner), else, with no token configured, the owner.
 * A wrong bearer token is a failure (it counts towards the rate limit).
 */
export async function resolveAccess(req: Pick<IncomingMessage, "headers">, token: string | null): Promise<AccessResult> {
  const auth = req.headers.authorization;
  if (typeof auth === "string" && /^Bearer\s+/i.test(auth)) {
    const ok = token !== null && safeEqual(auth.replace(/^Bearer\s+/i, "").trim(), token);
    if (ok) return { access: { role: "owner", via: "bearer", sessionId: null }, failed: false, staleCookie: false };
    if (token !== null) return { access: null, failed: true, staleCookie: false };
  }
  const cookie = parseCookies(req.headers.cookie)[SESSION_COOKIE];
  let staleCookie = false;
  if (cookie) {
    const session: LiveSession | null = await lookupSession(cookie);
    if (session?.role === "participant") {
      return { access: { ...session, via: "session", scope: await participantScope(session.participantId) }, failed: false, staleCookie: false };
    }
    if (session) return { access: { ...session, via: "session" }, failed: false, staleCookie: false };
    // A participant's ended session stays theirs (refused everywhere), even on a server without a token.
    const ended = await endedParticipantOf(cookie);
    if (ended) return { access: { role: "participant", participantId: ended, via: "session", sessionId: null, scope: null }, failed: false, staleCookie: true };
    staleCookie = true;
  }
  if (token === null) return { access: { role: "owner", via: "open", sessionId: null }, failed: false, staleCookie };
  // A stale cookie (logged out, expired) is not a guess: its secret is 256 random bits.
  return { access: null, failed: false, staleCookie };
}

/**
 * Paths served to anyone: the login page and its POST, logout, and the static assets they need.
 * `/_next/static/` holds only the compiled JS/CSS bundles (no data), which the login page loads.
 */
export function isPublicPath(method: string, pathname: string): boolean {
  // An invite link (lib/studies/participants.ts): studio-server.ts redeems it, rate-limited.
  if (pathname.startsWith("/invite/")) return method === "GET" || method === "HEAD";
  if (pathname === "/login") return method === "GET" || method === "HEAD" || method === "POST";
  if (pathname === "/logout") return method === "POST";
  if (pathname.startsWith("/_next/static/")) return method === "GET" || method === "HEAD";
  if (pathname === "/favicon.ico") return method === "GET" || method === "HEAD";
  return false;
}

/** The playground websocket's path. */
export const WS_PATH = "/ws";

/**
 * Whether `access` may make this request: public paths for anyone, everything for the owner, and
 * for a participant only what lib/http/participant-access.ts opens to them (deny by default).
 */
export function mayReach(access: Access | null, method: string, target: string | URL, wsPath = WS_PATH): boolean {
  const url = typeof target === "string" ? new URL(target, "http://localhost") : target;
  if (isPublicPath(method, url.pathname)) return true;
  if (!access) return false;
  if (access.role === "owner") return true;
  return access.scope ? participantMayReach(access.scope, method, url, wsPath) : false;
}

/** Whether a refused request should be sent to /login (a page) rather than answered 401. */
export function wantsLoginPage(req: Pick<IncomingMessage, "headers" | "method">, pathname: string): boolean {
  const accept = String(req.headers.accept ?? "");
  return (req.method === "GET" || req.method === "HEAD") && !pathname.startsWith("/api/") && accept.includes("text/html");
}

/** Request headers through which the server tells Next.js who is asking (set by it, never by the client). */
export const ACCESS_HEADERS = { role: "x-ic-role", participant: "x-ic-participant", session: "x-ic-session", secure: "x-ic-secure" } as const;

/** Replaces any client-sent access headers with the server's own for `access` (and whether it came over TLS). */
export function stampAccess(req: IncomingMessage, access: Access | null, secure = false): void {
  for (const k of Object.keys(req.headers)) if (k.startsWith("x-ic-")) delete req.headers[k];
  if (secure) req.headers[ACCESS_HEADERS.secure] = "1";
  if (!access) return;
  req.headers[ACCESS_HEADERS.role] = access.role;
  if (access.role === "participant") req.headers[ACCESS_HEADERS.participant] = access.participantId;
  if (access.sessionId) req.headers[ACCESS_HEADERS.session] = access.sessionId;
}

// ---------------------------------------------------------------------------------------------
// After login

/**
 * A safe post-login redirect target: a path on this server, else "/". Refuses anything a browser
 * could read as another host (`//x`, `/\x`, tabs or newlines that browsers strip, `/%09/x` once
 * decoded), control characters, and anything that does not parse back to the same origin.
 */
export function safeNext(next: string | null | undefined): string {
  if (!next || next.length > 2000 || !next.startsWith("/")) return "/";
  if (/[\u0000-\u001f\u007f\\]/.test(next)) return "/";
  let decoded = next;
  for (let i = 0; i < 3; i++) {
    try {
      const d = decodeURIComponent(decoded);
      if (d === decoded) break;
      decoded = d;
    } catch {
      return "/";
    }
  }
  if (/[\u0000-\u001f\u007f\\]/.test(decoded) || decoded.startsWith("//") || next.startsWith("//")) return "/";
  try {
    const base = "http://studio.invalid";
    const u = new URL(next, base);
    if (u.origin !== base) return "/";
    return u.pathname + u.search + u.hash;
  } catch {
    return "/";
  }
}

/**
 * Who asked, as a route handler or page sees it: read from the headers the server stamped
 * (`stampAccess`); null when the request did not pass through the access check.
 */
export function accessFromHeaders(headers: Pick<Headers, "get">): Principal | null {
  const role = headers.get(ACCESS_HEADERS.role);
  if (role === "owner") return { role: "owner" };
  const participantId = headers.get(ACCESS_HEADERS.participant);
  if (role === "participant" && participantId) return { role: "participant", participantId };
  return null;
}
