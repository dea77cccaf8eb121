import "server-only";
import { createHash, randomBytes } from "node:crypto";
import {
  countParticipantsByStudy,
  createParticipantRows,
  getParticipantById,
  getParticipantByInviteHash,
  listParticipantsByStudy,
  revokeParticipantById,
  type Participant,
} from "@/lib/db/participants";
import { BadInputError, ConflictError, NotFoundError } from "@/lib/errors";
import { taskOrderFor } from "./assignment";
import { getStudy, type StudyView } from "./studies";

/**
 * A study's participants: people invited by a link that holds an unguessable secret (256 random
 * bits; the store keeps only its SHA-256). Opening the link starts a participant session
 * (lib/http/studio-server.ts); the participant's annotator name ("P01", ...) and task order are
 * fixed here at invitation, never chosen by them.
 */

/** Most invites made at once. */
export const MAX_INVITES_AT_ONCE = 500;

/** The path of an invite link (the server prefixes its own origin). */
export const INVITE_PATH = "/invite/";

/** The invite secret's shape (32 random bytes, base64url). */
const SECRET_RE = /^[A-Za-z0-9_-]{43}$/;

export function inviteHashOf(secret: string): string {
  return createHash("sha256").update(secret).digest("base64url");
}

/** What a participant may reach (lib/http/participant-access.ts reads it on every request). */
export interface ParticipantScope {
  participantId: string;
  studyId: string;
  /** The annotator name their episodes carry. */
  label: string;
  env: string;
  dataset: string;
  /** Their tasks, in the order they work them. */
  tasks: string[];
}

export interface ParticipantView {
  id: string;
  label: string;
  position: number;
  tasks: string[];
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  consentedAt: Date | null;
  completedAt: Date | null;
  completionCode: string | null;
  /** live | revoked | expired */
  state: "live" | "revoked" | "expired";
}

function participantView(p: Participant, now = Date.now()): ParticipantView {
  return {
    id: p.id,
    label: p.label,
    position: p.position,
    tasks: JSON.parse(p.taskOrder) as string[],
    createdAt: p.createdAt,
    expiresAt: p.expiresAt,
    revokedAt: p.revokedAt,
    consentedAt: p.consentedAt,
    completedAt: p.completedAt,
    completionCode: p.completionCode,
    state: p.revokedAt ? "revoked" : p.expiresAt && p.expiresAt.getTime() <= now ? "expired" : "live",
  };
}

/** Parses a duration like 90s, 20m, 12h, 7d into milliseconds. @throws BadInputError naming `field`. */
export function parseDuration(text: string, field: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(s|m|h|d)$/.exec(text.trim());
  if (!m) throw new BadInputError(`${field} ${JSON.stringify(text)} is not a duration: write e.g. 90s, 20m, 12h or 7d`, field);
  const ms = Number(m[1]) * { s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 }[m[2] as "s" | "m" | "h" | "d"];
  if (!Number.isFinite(ms) || ms < 1000) throw new BadInputError(`${field} ${JSON.stringify(text)} is shorter than a second`, field);
  return Math.round(ms);
}

/**
 * Invites `count` new participants to an open study; returns each one's label and invite path
 * (`/invite/<secret>`: the only time the secret exists outside the participant's browser).
 * @throws NotFoundError, ConflictError when the study is closed, BadInputError for a bad count.
 */
export async function inviteParticipants(
  studyId: string,
  count: number,
  expiresInMs: number | null,
): Promise<{ participant: string; id: string; path: string }[]> {
  if (!Number.isInteger(count) || count < 1 || count > MAX_INVITES_AT_ONCE)
    throw new BadInputError(`count must be 1..${MAX_INVITES_AT_ONCE}, got ${count}`, "count");
  const study = await getStudy(studyId);
  if (!study) throw new NotFoundError(`study ${studyId}`);
  if (study.closedAt) throw new ConflictError(`study ${study.name} is closed: it takes no new participants`);
  const start = await countParticipantsByStudy({ studyId });
  const secrets: string[] = [];
  const rows = Array.from({ length: count }, (_, k) => {
    const position = start + k;
    const secret = randomBytes(32).toString("base64url");
    secrets.push(secret);
    return {
      studyId,
      label: `P${String(position + 1).padStart(2, "0")}`,
      inviteHash: inviteHashOf(secret),
      position,
      taskOrder: taskOrderFor(study.config.tasks, study.config.assign, position, studyId),
      expiresAt: expiresInMs === null ? null : new Date(Date.now() + expiresInMs),
    };
  });
  const made = await createParticipantRows({ rows });
  return made.map((p, k) => ({ participant: p.label, id: p.id, path: `${INVITE_PATH}${secrets[k]}` }));
}

/** What opening an invite link finds. */
export type InviteRedemption =
  | { kind: "ok"; participant: ParticipantView; studyId: string }
  | { kind: "unknown" }
  | { kind: "revoked"; studyName: string }
  | { kind: "expired"; studyName: string }
  | { kind: "closed"; studyName: string };

/** Looks an invite secret up (the caller starts the session on "ok"). */
export async function redeemInvite(secret: string): Promise<InviteRedemption> {
  if (!SECRET_RE.test(secret)) return { kind: "unknown" };
  const p = await getParticipantByInviteHash({ inviteHash: inviteHashOf(secret) });
  if (!p) return { kind: "unknown" };
  const study = await getStudy(p.studyId);
  if (!study) return { kind: "unknown" };
  const v = participantView(p);
  if (v.state === "revoked") return { kind: "revoked", studyName: study.name };
  if (v.state === "expired") return { kind: "expired", studyName: study.name };
  if (study.closedAt) return { kind: "closed", studyName: study.name };
  return { kind: "ok", participant: v, studyId: study.id };
}

/**
 * The scope of a live participant, or null when they are revoked, expired, gone, or their study
 * is closed (then their session grants nothing).
 */
export async function participantScope(participantId: string): Promise<ParticipantScope | null> {
  const p = await getParticipantById({ id: participantId });
  if (!p) return null;
  const v = participantView(p);
  if (v.state !== "live") return null;
  const study = await getStudy(p.studyId);
  if (!study || study.closedAt) return null;
  return { participantId: p.id, studyId: study.id, label: p.label, env: study.config.env, dataset: study.config.dataset, tasks: v.tasks };
}

export async function listParticipants(studyId: string): Promise<ParticipantView[]> {
  return (await listParticipantsByStudy({ studyId })).map((p) => participantView(p));
}

export async function getParticipant(id: string): Promise<ParticipantView | null> {
  const p = await getParticipantById({ id });
  return p ? participantView(p) : null;
}

/** Withdraws a participant's access: their sessions end at their next request or message. @throws NotFoundError */
export async function revokeParticipant(studyId: string, participantId: string): Promise<{ revoked: boolean }> {
  const p = await getParticipantById({ id: participantId });
  if (!p || p.studyId !== studyId) throw new NotFoundError(`participant ${participantId} of study ${studyId}`);
  return { revoked: await revokeParticipantById({ id: participantId }) };
}

export type { StudyView };
