import { afterAll, describe, expect, it } from "vitest";
import { closeStore } from "@/lib/db/client";
import { getSessionById } from "@/lib/db/sessions";
import { useFreshDb } from "@/lib/testing/store";
import { resolveAccess } from "./auth";
import { endParticipantSessions, endSession, lookupSession, SESSION_COOKIE, sessionIdOf, startSession } from "./sessions";

useFreshDb("sessions");
afterAll(() => closeStore());

const withCookie = (secret: string) => ({ headers: { cookie: `${SESSION_COOKIE}=${secret}` } });

describe("sessions (finding 6: revocable, one per login)", () => {
  it("each login gets its own secret; the store keeps only its hash; logout ends that one session", async () => {
    const a = await startSession({ role: "owner" });
    const b = await startSession({ role: "owner" });
    expect(a.secret).not.toBe(b.secret);
    const row = await getSessionById({ id: sessionIdOf(a.secret) });
    expect(row).toMatchObject({ role: "owner", participantId: null, revokedAt: null });
    expect(JSON.stringify(row)).not.toContain(a.secret);
    const token = "t".repeat(40);
    expect((await resolveAccess(withCookie(a.secret), token)).access).toMatchObject({ role: "owner", via: "session" });
    expect(await endSession(a.secret)).toBe(true);
    expect((await resolveAccess(withCookie(a.secret), token)).access).toBeNull();
    expect((await resolveAccess(withCookie(b.secret), token)).access).toMatchObject({ role: "owner" });
    // A bearer token is the owner; a wrong one is a failure (rate-limited).
    expect((await resolveAccess({ headers: { authorization: `Bearer ${token}` } }, token)).access).toMatchObject({ role: "owner", via: "bearer" });
    expect(await resolveAccess({ headers: { authorization: "Bearer nope" } }, token)).toMatchObject({ access: null, failed: true });
  });

  it("a participant session resolves to that participant, and withdrawing them ends all their sessions", async () => {
    const p1 = await startSession({ role: "participant", participantId: "p-1" });
    const p2 = await startSession({ role: "participant", participantId: "p-1" });
    expect(await lookupSession(p1.secret)).toMatchObject({ role: "participant", participantId: "p-1" });
    // Without a token configured, a participant's cookie still makes the request theirs, not the owner's.
    expect((await resolveAccess(withCookie(p2.secret), null)).access).toMatchObject({ role: "participant", participantId: "p-1" });
    expect(await endParticipantSessions("p-1")).toBe(2);
    expect(await lookupSession(p1.secret)).toBeNull();
    // Withdrawn, the cookie is still theirs: it grants nothing, even on a server without a token.
    expect((await resolveAccess(withCookie(p2.secret), null)).access).toMatchObject({ role: "participant", participantId: "p-1", scope: null });
    expect(await lookupSession("not-a-secret")).toBeNull();
  });
});
