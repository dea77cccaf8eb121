import "server-only";
import { randomBytes } from "node:crypto";
import { getParticipantById, setParticipantCompletedById, setParticipantConsentById } from "@/lib/db/participants";
import { NotFoundError } from "@/lib/errors";
import type { ParticipantScope } from "./participants";
import { getStudy, nextStudyTask } from "./studies";
import type { ParticipantProgress } from "./participant-progress";

export type { ParticipantProgress };

/** A short code a participant hands back to a crowd platform: 10 characters of base32 without 0/O/1/I. */
function newCompletionCode(): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
  return [...randomBytes(10)].map((b) => alphabet[b % alphabet.length]).join("");
}

/** The participant's progress; the first call that finds them finished stores their completion code. */
export async function participantProgress(scope: ParticipantScope): Promise<ParticipantProgress> {
  const [study, row] = await Promise.all([getStudy(scope.studyId), getParticipantById({ id: scope.participantId })]);
  if (!study || !row) throw new NotFoundError(`participant ${scope.participantId}`);
  const next = await nextStudyTask(scope.studyId, scope.label, scope.tasks);
  let completionCode = row.completionCode;
  if (!next.href && !completionCode) {
    await setParticipantCompletedById({ id: row.id, completionCode: newCompletionCode() });
    completionCode = (await getParticipantById({ id: row.id }))?.completionCode ?? null;
  }
  return {
    study: { id: study.id, name: study.name, instructions: study.config.instructions, timeLimitMs: study.config.timeLimitMs, feedback: study.config.feedback },
    label: scope.label,
    consented: row.consentedAt !== null,
    total: next.total,
    done: next.done,
    position: next.position,
    href: row.consentedAt ? next.href : null,
    completionCode: next.href ? null : completionCode,
  };
}

/** Records the participant's consent. */
export async function recordConsent(scope: ParticipantScope): Promise<void> {
  await setParticipantConsentById({ id: scope.participantId });
}
