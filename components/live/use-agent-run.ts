"use client";

import { useCallback, useRef, useState } from "react";
import type { AgentTurnView } from "@/lib/episodes/turn";
import type { ControllerMode } from "@/lib/episodes/agent-event";
import type { LiveEventOf, LoggedLiveEvent, ServerMessage, TurnEndEvent } from "@/lib/live/events";
import type { ClientMessageInput } from "@/lib/live/protocol";
import { useLiveSocket } from "@/components/live/use-live-socket";

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

async function postJson(url: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const json = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok) throw new Error(String((json.error as { message?: string } | undefined)?.message ?? `HTTP ${res.status}`));
  return json;
}

/**
 * Starts a model on a task (POST /api/live) and follows it on the live channel (the websocket,
 * components/live/use-live-socket.ts): `watch` from the entry after the last one seen, so a
 * dropped connection or a reload resumes where it was; the controls go over the same socket.
 */
export function useAgentRun(handlers: AgentRunHandlers) {
  const [state, setState] = useState<AgentRunState>(EMPTY);
  const handlersRef = useRef(handlers);
  handlersRef.current = handlers;
  const lastSeq = useRef(-1);

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

  const onMessage = (m: ServerMessage) => {
    switch (m.type) {
      case "hello":
        if (state.runId) socket.send({ type: "watch", id: state.runId, from: lastSeq.current + 1 }, true);
        return;
      case "logged":
        apply(m);
        return;
      case "error":
        // An episode the server no longer knows (ended a while ago, or the server restarted) is over for the page.
        if (m.code === "not_found") setState((s) => (s.outcome ? s : { ...s, error: m.message, mode: "stopped" }));
        else setState((s) => ({ ...s, error: m.message }));
        return;
    }
  };
  const socket = useLiveSocket(state.runId, { onMessage, onNotice: (text) => setState((s) => ({ ...s, error: text })) });

  /** Follows a model episode already running (a reload, another tab, a run's episode), from its first event. */
  const attach = useCallback((id: string) => {
    lastSeq.current = -1;
    setState({ ...EMPTY, runId: id });
  }, []);

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
      lastSeq.current = -1;
      setState(EMPTY);
      try {
        const { id } = await postJson("/api/live", body);
        setState((s) => ({ ...s, runId: String(id) }));
        return String(id);
      } catch (err) {
        setState((s) => ({ ...s, error: (err as Error).message }));
        return null;
      }
    },
    [],
  );

  const { send } = socket;
  /** Drives the watched episode; a refusal comes back as an error on the socket. */
  const control = useCallback((body: Omit<Extract<ClientMessageInput, { type: "control" }>, "type">) => void send({ type: "control", ...body }), [send]);

  return { state, start, attach, control };
}
