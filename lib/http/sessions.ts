import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { SESSION_COOKIE, SIGNED_IN_COOKIE } from "./cookie-names";
import { createSessionRow, getSessionById, revokeSessionById, revokeSessionsByParticipant } from "@/lib/db/sessions";

/**
 * Revocable sessions. A login creates one: the browser's cookie holds a random secret, the store
 * holds only its SHA-256 (the session id) with the role it grants, so a copy of the store gives no
 * usable cookie and logging out (or revoking a participant) ends the session at once.
 */

export { SESSION_COOKIE, SIGNED_IN_COOKIE };

/** How long a session lasts without a new login. */
export const SESSION_MAX_AGE_MS = 30 * 24 * 3600_000;

/** Who a request speaks for: the Studio's owner, or one participant of a study (lib/studies). */
export type Principal = { role: "owner" } | { role: "participant"; participantId: string };

/** A live session: its principal and its id (the hash of the cookie's secret). */
export type LiveSession = Principal & { sessionId: string };

/** The session id (stored) of a cookie's secret (sent). */
export function sessionIdOf(secret: string): string {
  return createHash("sha256").update(secret).digest("base64url");
}

/** What a lookup remembers for a few seconds, so a page's burst of requests reads the store once. */
type Cached = { session: LiveSession | null; until: number; expiresAt: number };
const CACHE_MS = 5_000;
const cache = new Map<string, Cached>();

/** Starts a session for `principal`; returns the secret the cookie carries. */
export async function startSession(principal: Principal): Promise<{ secret: string; sessionId: string; maxAgeMs: number }> {
  const secret = randomBytes(32).toString("base64url");
  const sessionId = sessionIdOf(secret);
  const expiresAt = new Date(Date.now() + SESSION_MAX_AGE_MS);
  await createSessionRow({ id: sessionId, role: principal.role, participantId: principal.role === "participant" ? principal.participantId : null, expiresAt });
  return { secret, sessionId, maxAgeMs: SESSION_MAX_AGE_MS };
}

/** The live session a cookie's secret names, or null (unknown, revoked or expired). */
export async function lookupSession(secret: string): Promise<LiveSession | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(secret)) return null;
  return lookupSessionById(sessionIdOf(secret));
}

/**
 * The live session with this id, or null. Owner sessions are remembered for a few seconds;
 * participant sessions are read from the store every time, so a revocation (by the page or by
 * the CLI in another process) ends access at the participant's very next request or message.
 */
export async function lookupSessionById(id: string): Promise<LiveSession | null> {
  const now = Date.now();
  const hit = cache.get(id);
  if (hit && hit.until > now) return hit.expiresAt > now ? hit.session : null;
  const row = await getSessionById({ id });
  let session: LiveSession | null = null;
  if (row && !row.revokedAt && row.expiresAt.getTime() > now) {
    if (row.role === "owner") session = { role: "owner", sessionId: id };
    else if (row.role === "participant" && row.participantId) session = { role: "participant", participantId: row.participantId, sessionId: id };
  }
  if (row?.role === "participant") return session;
  if (cache.size > 10_000) cache.clear();
  cache.set(id, { session, until: now + CACHE_MS, expiresAt: row?.expiresAt.getTime() ?? 0 });
  return session;
}

/** The participant a cookie's ended (revoked or expired) session belonged to, or null. */
export async function endedParticipantOf(secret: string): Promise<string | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(secret)) return null;
  const row = await getSessionById({ id: sessionIdOf(secret) });
  return row?.role === "participant" ? row.participantId : null;
}

/** Ends the session a cookie's secret names (logout); true when it was live. */
export async function endSession(secret: string): Promise<boolean> {
  const id = sessionIdOf(secret);
  cache.delete(id);
  return revokeSessionById({ id });
}

/** Ends every session of a participant (access withdrawn); returns how many were live. */
export async function endParticipantSessions(participantId: string): Promise<number> {
  for (const [id, c] of cache) if (c.session?.role === "participant" && c.session.participantId === participantId) cache.delete(id);
  return revokeSessionsByParticipant({ participantId });
}

/** The Set-Cookie headers that carry a session's secret (httpOnly) and the signed-in marker. */
export function sessionCookie(secret: string, secure: boolean, maxAgeMs = SESSION_MAX_AGE_MS): string[] {
  const attrs = `Path=/; SameSite=Strict; Max-Age=${Math.floor(maxAgeMs / 1000)}${secure ? "; Secure" : ""}`;
  return [`${SESSION_COOKIE}=${secret}; HttpOnly; ${attrs}`, `${SIGNED_IN_COOKIE}=1; ${attrs}`];
}

/** The Set-Cookie headers that remove both cookies. */
export function clearedSessionCookie(secure: boolean): string[] {
  const attrs = `Path=/; SameSite=Strict; Max-Age=0${secure ? "; Secure" : ""}`;
  return [`${SESSION_COOKIE}=; HttpOnly; ${attrs}`, `${SIGNED_IN_COOKIE}=; ${attrs}`];
}
