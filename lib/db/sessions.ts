import "server-only";
import { withPrisma } from "./client";
import type { Session } from "./generated/client";
import { columnsOf, recordParser, selectAll } from "./rows";
import { withSql } from "./sql";

export type { Session } from "./generated/client";

const sessionRecord = recordParser("Session", columnsOf("Session"));

/** Stores a new session (its id is the hash of the cookie's secret, lib/http/sessions.ts). */
export async function createSessionRow({
  id,
  role,
  participantId = null,
  expiresAt,
}: {
  id: string;
  role: string;
  participantId?: string | null;
  expiresAt: Date;
}): Promise<Session> {
  return withPrisma((prisma) => prisma.session.create({ data: { id, role, participantId, expiresAt } }));
}

/** The session with this id, revoked or expired ones included (the caller decides). */
export async function getSessionById({ id }: { id: string }): Promise<Session | null> {
  return withSql(async (sql) => {
    const row = await sql.get(`SELECT ${selectAll("Session")} FROM "Session" WHERE "id" = ?`, [id]);
    return row ? sessionRecord.one(row) : null;
  });
}

/** Marks a session revoked; returns whether it was live. */
export async function revokeSessionById({ id }: { id: string }): Promise<boolean> {
  return withPrisma(async (prisma) => (await prisma.session.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } })).count > 0);
}

/** Revokes every live session of a participant (their access withdrawn); returns how many. */
export async function revokeSessionsByParticipant({ participantId }: { participantId: string }): Promise<number> {
  return withPrisma(async (prisma) => (await prisma.session.updateMany({ where: { participantId, revokedAt: null }, data: { revokedAt: new Date() } })).count);
}

/** Revokes every live owner session (the owner's "log out everywhere"); returns how many. */
export async function revokeOwnerSessions(): Promise<number> {
  return withPrisma(async (prisma) => (await prisma.session.updateMany({ where: { role: "owner", revokedAt: null }, data: { revokedAt: new Date() } })).count);
}

/** Deletes sessions that expired or were revoked before `before`; returns how many. */
export async function deleteSessionsEndedBefore({ before }: { before: Date }): Promise<number> {
  return withPrisma(
    async (prisma) => (await prisma.session.deleteMany({ where: { OR: [{ expiresAt: { lt: before } }, { revokedAt: { lt: before } }] } })).count,
  );
}
