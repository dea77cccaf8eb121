import "server-only";
import { getEpisodeById } from "@/lib/db/episodes";
import { asStudioError, ConflictError, ForbiddenError, UnauthorizedError } from "@/lib/errors";
import type { PersonEpisode } from "@/lib/live/person-actor";
import { participantScope, type ParticipantScope } from "@/lib/studies/participants";
import { getStudy, nextStudyTask, type StudyConfig } from "@/lib/studies/studies";
import { readStudyClock } from "@/lib/studies/study-clock";
import type { ActionMessage, OpenMessage } from "@/lib/live/protocol";
import type { LiveEventInput, SubmittedPayload } from "@/lib/live/events";
import type { EpisodeListener, PlaygroundEpisodes } from "@/lib/live/ws-server";
import { lookupSessionById } from "./sessions";

/**
 * What a participant may do, deny-by-default: the rules lib/http/auth.ts's `mayReach` (every
 * HTTP request and websocket upgrade) and `participantEpisodes` (every websocket message) apply.
 * A participant reaches their study's landing page and its small API (next task, consent,
 * clock), the play page of their own tasks within their study, and the websocket, where they
 * may open only their current task, resume only their own episodes, and hear of an outcome only
 * as far as the study's feedback setting allows. Nothing else: no list, replay, gold, model, run,
 * stats, import, export, other study or other participant.
 */

/** The API routes of a participant's own study (under /api/studies/<id>/). */
export const PARTICIPANT_STUDY_ROUTES: Readonly<Record<string, readonly string[]>> = {
  next: ["GET", "HEAD"],
  consent: ["POST"],
  clock: ["POST"],
};

/** Whether a participant with `scope` may make this request (pages, API routes, the websocket upgrade). */
export function participantMayReach(scope: ParticipantScope, method: string, url: URL, wsPath: string): boolean {
  const read = method === "GET" || method === "HEAD";
  const parts = url.pathname.split("/").slice(1);
  let seg: string[];
  try {
    seg = parts.map((p) => decodeURIComponent(p));
  } catch {
    return false;
  }
  if (url.pathname === wsPath) return method === "GET";
  // /play/study/<id>: their study's landing page (results under it are the owner's).
  if (seg.length === 3 && seg[0] === "play" && seg[1] === "study") return read && seg[2] === scope.studyId;
  // /play/<env>/<dataset>:<id>?study=<their study>: one of their tasks, within the study, never the model view.
  if (seg.length === 3 && seg[0] === "play") {
    if (!read || seg[1] !== scope.env) return false;
    const prefix = `${scope.dataset}:`;
    if (!seg[2].startsWith(prefix) || !scope.tasks.includes(seg[2].slice(prefix.length))) return false;
    if (url.searchParams.get("study") !== scope.studyId || url.searchParams.has("agent")) return false;
    return true;
  }
  if (seg.length === 4 && seg[0] === "api" && seg[1] === "studies" && seg[2] === scope.studyId) {
    return PARTICIPANT_STUDY_ROUTES[seg[3]]?.includes(method) ?? false;
  }
  return false;
}

/** The participant's session's scope now, or a refusal (revoked, expired, study closed). */
async function liveScope(sessionId: string, participantId: string): Promise<ParticipantScope> {
  const s = await lookupSessionById(sessionId);
  const scope = s?.role === "participant" && s.participantId === participantId ? await participantScope(participantId) : null;
  if (!scope) throw new UnauthorizedError("your access to this study has ended (the invite was revoked or expired, or the study closed)");
  return scope;
}

/** A participant's view of a submit: the outcome only as far as the study's feedback allows. */
export function redactSubmitted(p: SubmittedPayload, config: Pick<StudyConfig, "feedback" | "showGoldAfterSubmit">, gold: string): SubmittedPayload {
  const kind = p.breakdown.kind;
  const showGold = config.showGoldAfterSubmit;
  if (config.feedback === "none")
    return { reward: 0, breakdown: { kind }, gold: showGold ? gold : "", goldObservation: "", agentObservation: "", hidden: true };
  return {
    reward: p.reward,
    breakdown: config.feedback === "full" ? p.breakdown : { kind },
    gold: showGold ? gold : "",
    goldObservation: showGold && config.feedback === "full" ? p.goldObservation : "",
    agentObservation: config.feedback === "full" ? p.agentObservation : "",
  };
}

/** Errors a participant hears: never another episode's id or another annotator's name. */
function participantError(err: unknown): Error {
  const e = asStudioError(err);
  if (e.code === "conflict" && /sealed/.test(e.message)) return new ConflictError("this task's outcome is sealed while the study runs");
  return e;
}

/**
 * The episodes a participant's websocket connection drives: the manager behind the participant
 * rules. Every message re-reads the session (a revocation ends access at the next message);
 * open takes the participant's current task with the study's conditions and their own annotator
 * name; resume takes only their own episodes; what they hear is filtered by the study's feedback.
 */
export function participantEpisodes(
  manager: PlaygroundEpisodes<PersonEpisode>,
  who: { sessionId: string; participantId: string },
): PlaygroundEpisodes<PersonEpisode> {
  const filters = new WeakMap<EpisodeListener, EpisodeListener>();

  const filtered = async (scope: ParticipantScope, listener: EpisodeListener): Promise<EpisodeListener> => {
    const study = await getStudy(scope.studyId);
    if (!study) throw new ForbiddenError("your study is gone");
    const f: EpisodeListener = (m: LiveEventInput) => {
      // The manager already hid a sealed gold; a study that shows it after submit lets it through.
      const gold = () => ("gold" in m ? m.gold : m.type === "opened" ? (m.submitted?.gold ?? "") : "");
      if (m.type === "submitted") {
        const { forced } = m;
        return listener({ type: "submitted", ...redactSubmitted(m, study.config, gold()), forced });
      }
      if (m.type === "opened" && m.submitted) return listener({ ...m, submitted: redactSubmitted(m.submitted, study.config, gold()) });
      if (m.type === "turnEnd" && study.config.feedback === "none") return listener({ ...m, reward: undefined });
      if (m.type === "status" && /sealed/.test(m.message)) return;
      if (m.type === "error" && /sealed/.test(m.message)) return listener({ ...m, message: "this task's outcome is sealed while the study runs" });
      listener(m);
    };
    filters.set(listener, f);
    return f;
  };
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (err) {
      throw participantError(err);
    }
  };

  return {
    open: (msg: OpenMessage, listener) =>
      guard(async () => {
        const scope = await liveScope(who.sessionId, who.participantId);
        if (msg.studyId !== scope.studyId) throw new ForbiddenError("a participant opens tasks only within their own study");
        const next = await nextStudyTask(scope.studyId, scope.label, scope.tasks);
        const want = next.position < scope.tasks.length ? `${scope.dataset}:${scope.tasks[next.position]}` : null;
        if (msg.env !== scope.env || msg.taskRef !== want) {
          throw new ForbiddenError(want ? `this is not your current task: your next task is ${want}` : "you have finished every task of this study");
        }
        const f = await filtered(scope, listener);
        return manager.open({ ...msg, mode: "baseline", annotator: scope.label, studyId: scope.studyId }, f);
      }),
    resume: (episodeId, listener) =>
      guard(async () => {
        const scope = await liveScope(who.sessionId, who.participantId);
        const stored = await getEpisodeById({ id: episodeId });
        if (!stored || stored.studyId !== scope.studyId || stored.annotator !== scope.label)
          throw new ForbiddenError(`episode ${episodeId} is not one of yours`);
        const f = await filtered(scope, listener);
        return manager.resume(episodeId, f);
      }),
    detach: (ep, listener) => manager.detach(ep, filters.get(listener) ?? listener),
    action: (ep, text: string, source: ActionMessage["source"]) =>
      guard(async () => {
        const scope = await liveScope(who.sessionId, who.participantId);
        // The task's time limit (active time) is up: the task takes no more actions.
        if ((await readStudyClock(scope.studyId, scope.label, ep.task.id)).remainingMs === 0)
          throw new ConflictError("the time limit for this task is up: submit or skip");
        return manager.action(ep, text, source);
      }),
    interrupt: (ep) => manager.interrupt(ep),
    // The recording of the participant's own episode (the connection holds only episodes it opened or resumed above).
    record: (ep, chunk) =>
      guard(async () => {
        await liveScope(who.sessionId, who.participantId);
        return manager.record(ep, chunk);
      }),
    submit: (ep, arg) =>
      guard(async () => {
        await liveScope(who.sessionId, who.participantId);
        return manager.submit(ep, arg);
      }),
    abandon: (ep, reason) =>
      guard(async () => {
        await liveScope(who.sessionId, who.participantId);
        return manager.abandon(ep, reason);
      }),
    restart: (ep, listener) =>
      guard(async () => {
        await liveScope(who.sessionId, who.participantId);
        return manager.restart(ep, filters.get(listener) ?? listener);
      }),
    // No model: a participant neither watches nor drives a model's episode.
    watch: async () => {
      throw new ForbiddenError("a participant does not watch model episodes");
    },
    control: async () => {
      throw new ForbiddenError("a participant does not drive model episodes");
    },
  };
}
