import "server-only";
import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { UnauthorizedError } from "@/lib/errors";

/**
 * Access control for the whole app, applied in ONE place: the custom server checks every HTTP
 * request and websocket upgrade with `authorizeRequest` before Next.js or the websocket sees it.
 * With no token configured (loopback only), everything is open.
 */

export const SESSION_COOKIE = "ic_session";

/** True for 127.0.0.0/8, ::1 and "localhost". */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost") return true;
  if (isIP(h) === 4) return h.startsWith("127.");
  if (isIP(h) === 6) return h === "::1" || h === "0:0:0:0:0:0:0:1" || h.startsWith("::ffff:127.");
  return false;
}

/** Refuses a non-loopback bind without a token. */
export function assertSafeBind(host: string, token: string | null): void {
  if (!isLoopbackHost(host) && !token) {
    throw new UnauthorizedError(
      `IC_HOST=${host} is not a loopback address: set IC_TOKEN to a long random secret so that only people holding it can use the server`,
    );
  }
}

/** The cookie value for a token: an HMAC of it, so the cookie never carries the token itself. */
export function sessionValue(token: string): string {
  return createHmac("sha256", token).update("intercode-studio session v1").digest("base64url");
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

/** Whether a request carries the token: the session cookie, or `Authorization: Bearer <token>`. */
export function hasValidCredentials(req: Pick<IncomingMessage, "headers">, token: string): boolean {
  const auth = req.headers.authorization;
  if (typeof auth === "string" && /^Bearer\s+/i.test(auth)) {
    return safeEqual(auth.replace(/^Bearer\s+/i, "").trim(), token);
  }
  const cookie = parseCookies(req.headers.cookie)[SESSION_COOKIE];
  return cookie !== undefined && safeEqual(cookie, sessionValue(token));
}

/**
 * Paths served without a token: the login page, its POST, and the static assets it needs.
 * `/_next/static/` holds only the compiled JS/CSS bundles (no data), which the login page loads.
 */
export function isPublicPath(method: string, pathname: string): boolean {
  if (pathname === "/login") return method === "GET" || method === "HEAD" || method === "POST";
  if (pathname.startsWith("/_next/static/")) return method === "GET" || method === "HEAD";
  if (pathname === "/favicon.ico") return method === "GET" || method === "HEAD";
  return false;
}

export type AuthDecision = { allow: true } | { allow: false; reason: "login" | "unauthorized" };

/**
 * The single access check. A page request without credentials is sent to /login; an API call,
 * websocket or anything else gets 401.
 */
export function authorizeRequest(req: Pick<IncomingMessage, "headers" | "method">, pathname: string, token: string | null): AuthDecision {
  if (!token) return { allow: true };
  if (isPublicPath(req.method ?? "GET", pathname)) return { allow: true };
  if (hasValidCredentials(req, token)) return { allow: true };
  const accept = String(req.headers.accept ?? "");
  const isPage = (req.method === "GET" || req.method === "HEAD") && !pathname.startsWith("/api/") && accept.includes("text/html");
  return { allow: false, reason: isPage ? "login" : "unauthorized" };
}

/** A safe post-login redirect target: a local path only. */
export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) return "/";
  return next;
}

/** The Set-Cookie header for a session. */
export function sessionCookie(token: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${sessionValue(token)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${30 * 24 * 3600}${secure ? "; Secure" : ""}`;
}
