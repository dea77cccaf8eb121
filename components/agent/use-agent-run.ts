"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { AgentTurnView } from "@/lib/episodes/turn";
import type { ControllerMode } from "@/lib/episodes/agent-event";
import { loggedLiveEventSchema, type LiveEventOf, type LoggedLiveEvent, type TurnEndEvent } from "@/lib/live/events";

/** A turn as the agent view shows it: picked from the one Turn schema. */
export type { AgentTurnView };

export interface AgentRunState {
  runId: string | null;
  episodeId: string | null;
  mode: ControllerMode | null;
  turns: AgentTurnView[];
  /** The action of the turn in flight (or the last one). */
  currentAction: { seq: number; text: string; actor: "model" | "human" } | null;
  /** The model's reply as it streams. */
  replyDraft: string;
  plan: string[] | null;
  outcome: LiveEventOf<"episodeEnd">["outcome"] | null;
  /** What the running episode was started with (from its start event; set when reattaching too). */
  info: { model: string; policy: string; maxTurns: number } | null;
  error: string | null;
}

export interface AgentRunHandlers {
  onOutput?(chunk: string): void;
  onAction?(text: string, actor: "model" | "human"): void;
  onTurnEnd?(turn: AgentTurnView): void;
  /** The model's reply came after a take-over: dropped, not run. */
  onReplyDropped?(): void;
}

const EMPTY: AgentRunState = {
  runId: null,
  episodeId: null,
  mode: null,
  turns: [],
  currentAction: null,
  replyDraft: "",
  plan: null,
  outcome: null,
  info: null,
  error: null,
};

/** The agent view's turn from the live channel's turnEnd (a turn no model scored has no reward). */
function agentTurn(e: TurnEndEvent): AgentTurnView {
  return {
    index: e.index,
    actor: e.actor,
    source: e.source,
    action: e.action,
    observation: e.observation,
    ok: e.ok,
    reward: e.reward ?? null,
    thought: e.thought ?? null,
    tokensIn: e.tokensIn ?? null,
    tokensOut: e.tokensOut ?? null,
    latencyMs: e.latencyMs ?? null,
    costUsd: e.costUsd ?? null,
  };
}

/** Thrown by follow() when the server does not know the run: retrying will not help. */
class GoneError extends Error {}

async function postJson(url: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) throw new Error(String((json.error as { message?: string } | undefined)?.message ?? `HTTP ${res.status}`));
  return json;
}

/**
 * Starts a model on a task and follows its live events (lib/live/events.ts, over a server-sent
 * event stream resumed from the last event seen if the connection drops); exposes the controls.
 */
export function useAgentRun(handlers: AgentRunHandlers) {
  const [state, setState] = useState<AgentRunState>(EMPTY);
  const handlersRef = useRef(handlers);
  handlersRef.current = handlers;
  const lastSeq = useRef(-1);
  const abortRef = useRef<AbortController | null>(null);

  const apply = useCallback((l: LoggedLiveEvent) => {
    if (l.seq <= lastSeq.current) return;
    lastSeq.current = l.seq;
    const e = l.event;
    setState((s) => {
      switch (e.type) {
        case "episodeStart":
          return { ...s, episodeId: e.episodeId, mode: s.mode ?? "running", info: { model: e.model, policy: e.policy, maxTurns: e.maxTurns } };
        case "mode":
          return { ...s, mode: e.mode };
        case "plan":
          return { ...s, plan: e.steps };
        case "turnStart":
          return { ...s, replyDraft: "" };
        case "replyDelta":
          return { ...s, replyDraft: s.replyDraft + e.text };
        case "replyDropped":
          return { ...s, replyDraft: "" };
        case "action":
          return { ...s, currentAction: { seq: l.seq, text: e.action, actor: e.actor } };
        case "turnEnd":
          return { ...s, turns: [...s.turns, agentTurn(e)] };
        case "episodeEnd":
          return { ...s, outcome: e.outcome, mode: "stopped" };
        case "failed":
          return { ...s, error: e.message, mode: "stopped" };
        default:
          return s;
      }
    });
    if (e.type === "output") handlersRef.current.onOutput?.(e.chunk);
    if (e.type === "action") handlersRef.current.onAction?.(e.action, e.actor);
    if (e.type === "turnEnd") handlersRef.current.onTurnEnd?.(agentTurn(e));
    if (e.type === "replyDropped") handlersRef.current.onReplyDropped?.();
  }, []);

  const follow = useCallback(
    async (runId: string) => {
      const abort = new AbortController();
      abortRef.current = abort;
      for (let attempt = 0; attempt < 20 && !abort.signal.aborted; attempt++) {
        try {
          const res = await fetch(`/api/live/${encodeURIComponent(runId)}/events?from=${lastSeq.current + 1}`, { signal: abort.signal });
          if (res.status === 404) {
            const json = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
            throw new GoneError(json.error?.message ?? `no live model episode ${runId}`);
          }
          if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
          const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
          let buf = "";
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buf += value;
            let i;
            while ((i = buf.indexOf("\n\n")) >= 0) {
              const chunk = buf.slice(0, i);
              buf = buf.slice(i + 2);
              if (!chunk.startsWith("data: ")) continue;
              // Checked against the shared schema: an event the page does not understand is skipped, not guessed at.
              const parsed = loggedLiveEventSchema.safeParse(JSON.parse(chunk.slice(6)));
              if (parsed.success) apply(parsed.data);
              else console.warn("model event not understood:", parsed.error.issues[0]?.message);
            }
          }
          return; // the stream ends with the episode
        } catch (err) {
          if (abort.signal.aborted) return;
          if (err instanceof GoneError) {
            setState((s) => ({ ...s, error: err.message, mode: "stopped" }));
            return;
          }
          await new Promise((r) => setTimeout(r, 500 * (attempt + 1)));
        }
      }
    },
    [apply],
  );

  useEffect(() => () => abortRef.current?.abort(), []);

  /** Follows a model episode already running (a reload, another tab, a run's episode), from its first event. */
  const attach = useCallback(
    (id: string) => {
      abortRef.current?.abort();
      lastSeq.current = -1;
      setState({ ...EMPTY, runId: id });
      void follow(id);
    },
    [follow],
  );

  /** Starts a model on the task; resolves with the new run's id (null when it was refused). */
  const start = useCallback(
    async (body: {
      env: string;
      taskRef: string;
      model: string;
      policy: string;
      turnLimit: number;
      handicap: boolean;
      paused?: boolean;
    }): Promise<string | null> => {
      abortRef.current?.abort();
      lastSeq.current = -1;
      setState(EMPTY);
      try {
        const { id } = await postJson("/api/live", body);
        setState((s) => ({ ...s, runId: String(id) }));
        void follow(String(id));
        return String(id);
      } catch (err) {
        setState((s) => ({ ...s, error: (err as Error).message }));
        return null;
      }
    },
    [follow],
  );

  const control = useCallback(
    async (body: { op: string; text?: string; source?: string }) => {
      if (!state.runId) return;
      try {
        await postJson(`/api/live/${state.runId}/control`, body);
      } catch (err) {
        setState((s) => ({ ...s, error: (err as Error).message }));
      }
    },
    [state.runId],
  );

  return { state, start, attach, control };
}
