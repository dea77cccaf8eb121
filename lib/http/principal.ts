import "server-only";
import { ForbiddenError, UnauthorizedError } from "@/lib/errors";
import { participantScope, type ParticipantScope } from "@/lib/studies/participants";
import { accessFromHeaders } from "./auth";

/**
 * Who asks, for a route handler or page that answers owner and participant differently. The
 * server (studio-server.ts) has already decided that they may reach the path; this only reads
 * which of the two they are, from the headers it stamped.
 */
export async function principalOf(headers: Pick<Headers, "get">): Promise<{ role: "owner" } | { role: "participant"; scope: ParticipantScope }> {
  const who = accessFromHeaders(headers);
  if (!who) throw new UnauthorizedError("the request did not pass the access check");
  if (who.role === "owner") return who;
  const scope = await participantScope(who.participantId);
  if (!scope) throw new UnauthorizedError("your access to this study has ended");
  return { role: "participant", scope };
}

/** The participant's scope when they are a participant of `studyId`. @throws ForbiddenError for the owner or another study's participant */
export async function requireParticipantOf(headers: Pick<Headers, "get">, studyId: string): Promise<ParticipantScope> {
  const who = await principalOf(headers);
  if (who.role !== "participant" || who.scope.studyId !== studyId) throw new ForbiddenError(`only a participant of study ${studyId} gives consent to it`);
  return who.scope;
}
