import "server-only";
import { z } from "zod";
import { withPrisma } from "./client";
import type { Participant } from "./generated/client";
import { columnsOf, recordParser, selectAll } from "./rows";
import { withSql } from "./sql";

export type { Participant } from "./generated/client";

const participantRecord = recordParser("Participant", columnsOf("Participant"));
const SELECT = `SELECT ${selectAll("Participant")} FROM "Participant"`;

async function getParticipantWhere(column: "id" | "inviteHash", value: string): Promise<Participant | null> {
  return withSql(async (sql) => {
    const row = await sql.get(`${SELECT} WHERE "${column}" = ?`, [value]);
    return row ? participantRecord.one(row) : null;
  });
}

/** Stores new participants of a study (their invites) in one transaction. */
export async function createParticipantRows({
  rows,
}: {
  rows: { studyId: string; label: string; inviteHash: string; position: number; taskOrder: string[]; expiresAt: Date | null }[];
}): Promise<Participant[]> {
  return withPrisma((prisma) => prisma.$transaction(rows.map((r) => prisma.participant.create({ data: { ...r, taskOrder: JSON.stringify(r.taskOrder) } }))));
}

/** How many participants a study has had (revoked ones included): the next one's position. */
export async function countParticipantsByStudy({ studyId }: { studyId: string }): Promise<number> {
  return withSql(async (sql) =>
    z.number().parse((await sql.get<{ n: unknown }>(`SELECT COUNT(*) AS "n" FROM "Participant" WHERE "studyId" = ?`, [studyId]))?.n),
  );
}

export async function getParticipantById({ id }: { id: string }): Promise<Participant | null> {
  return getParticipantWhere("id", id);
}

export async function getParticipantByInviteHash({ inviteHash }: { inviteHash: string }): Promise<Participant | null> {
  return getParticipantWhere("inviteHash", inviteHash);
}

/** A study's participants in invitation order. */
export async function listParticipantsByStudy({ studyId }: { studyId: string }): Promise<Participant[]> {
  return withSql(async (sql) => participantRecord.all(await sql.all(`${SELECT} WHERE "studyId" = ? ORDER BY "position"`, [studyId])));
}

/** Marks a participant revoked and revokes their sessions; returns whether they were live. */
export async function revokeParticipantById({ id }: { id: string }): Promise<boolean> {
  return withPrisma(async (prisma) => {
    const [p] = await prisma.$transaction([
      prisma.participant.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } }),
      prisma.session.updateMany({ where: { participantId: id, revokedAt: null }, data: { revokedAt: new Date() } }),
    ]);
    return p.count > 0;
  });
}

/** Records consent (once; later calls keep the first time). */
export async function setParticipantConsentById({ id }: { id: string }): Promise<void> {
  await withPrisma((prisma) => prisma.participant.updateMany({ where: { id, consentedAt: null }, data: { consentedAt: new Date() } }));
}

/** Records the end of a participant's study with its completion code (once). */
export async function setParticipantCompletedById({ id, completionCode }: { id: string; completionCode: string }): Promise<void> {
  await withPrisma((prisma) => prisma.participant.updateMany({ where: { id, completedAt: null }, data: { completedAt: new Date(), completionCode } }));
}
