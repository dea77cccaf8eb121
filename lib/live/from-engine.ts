/**
 * A model episode's engine events (lib/episodes/agent-event.ts, what runEpisode emits) as the live
 * channel's events (./events.ts): the same turnStart/output/turnEnd a person's episode sends, so a
 * page shows a turn one way whoever acted. Pure and client-safe.
 */
import type { AgentEvent } from "@/lib/episodes/agent-event";
import type { Turn } from "@/lib/episodes/turn";
import type { LiveEventInput, TurnEndEvent } from "./events";

/**
 * A stored turn's turnEnd, as every live episode sends it, whoever acted: a model's episode adds
 * the model's side of the turn (toLiveEvent), a person's what the console shows (person-actor.ts).
 */
export function turnEndOf(t: Turn): TurnEndEvent {
  return {
    type: "turnEnd",
    index: t.index,
    actor: t.actor,
    source: t.source,
    action: t.action,
    ok: t.ok,
    observation: t.observation,
    timedOut: t.timedOut || undefined,
    aborted: t.aborted || undefined,
    reward: t.reward ?? undefined,
    durationMs: t.durationMs,
  };
}

/** The live event for an engine event, or null for one no page shows (the score is in episodeEnd). */
export function toLiveEvent(e: AgentEvent): LiveEventInput | null {
  switch (e.type) {
    case "episode-start":
      return { type: "episodeStart", episodeId: e.episodeId, taskId: e.taskId, policy: e.policy, model: e.model, maxTurns: e.maxTurns };
    case "plan":
      return { type: "plan", steps: e.steps };
    case "turn-start":
      return { type: "turnStart", index: e.index, actor: e.actor };
    case "reply-delta":
      return { type: "replyDelta", index: e.index, text: e.text };
    case "reply-dropped":
      return { type: "replyDropped", index: e.index };
    case "action":
      return { type: "action", index: e.index, actor: e.actor, action: e.action, thought: e.thought };
    case "output":
      return { type: "output", index: e.index, chunk: e.chunk };
    case "turn-end": {
      const t = e.turn;
      return { ...turnEndOf(t), thought: t.thought, tokensIn: t.tokensIn, tokensOut: t.tokensOut, latencyMs: t.latencyMs, costUsd: t.costUsd };
    }
    case "submitted":
      return null;
    case "episode-end": {
      const { status, reward, success, errorReason } = e.outcome;
      return { type: "episodeEnd", outcome: { status, reward, success, errorReason } };
    }
  }
}
