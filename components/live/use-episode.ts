"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { OpenMessage } from "@/lib/live/protocol";
import type { EpisodeView, LiveEventOf, ServerMessage, SubmittedPayload, TurnView } from "@/lib/live/events";
import { type ConnectionState, useLiveSocket } from "@/components/live/use-live-socket";
import type { PublicTask } from "@/lib/tasks/public-task";
import type { RecordingChunk } from "@/lib/recording/events";

/** What the page opens an episode with: the open message (lib/live/protocol.ts) without its tag. */
export type EpisodeOpenParams = Omit<OpenMessage, "type">;

/** Streams of the episode the page shows in the console. */
export interface EpisodeStreamHandlers {
  onTurnStart?(index: number, action: string, source: string): void;
  onOutput?(chunk: string): void;
  onTurnEnd?(m: LiveEventOf<"turnEnd">): void;
  onNotice?(text: string, kind: "error" | "status" | "limit"): void;
  /** An episode was opened or resumed (turns so far included). */
  onOpened?(m: LiveEventOf<"opened">): void;
}

export type { ConnectionState };

/**
 * A person's episode on the live channel (the websocket, components/live/use-live-socket.ts):
 * opens the episode (or resumes it, after a reload or a dropped connection, from the episode id
 * kept in the URL) and exposes the episode's state and actions.
 */
export function useEpisode(params: EpisodeOpenParams | null, handlers: EpisodeStreamHandlers) {
  const handlersRef = useRef(handlers);
  handlersRef.current = handlers;
  const paramsRef = useRef(params);
  paramsRef.current = params;
  const episodeIdRef = useRef<string | null>(null);
  const [episode, setEpisode] = useState<EpisodeView | null>(null);
  const [task, setTask] = useState<PublicTask | null>(null);
  const [turns, setTurns] = useState<TurnView[]>([]);
  const [running, setRunning] = useState(false);
  const [submitted, setSubmitted] = useState<SubmittedPayload | null>(null);
  const [lastReward, setLastReward] = useState<number | null>(null);
  const [limitReached, setLimitReached] = useState(false);
  const [fatal, setFatal] = useState<string | null>(null);

  const paramsKey = params ? JSON.stringify(params) : null;

  // The episode the URL names, read again whenever the page opens another task (before the socket's hello).
  // biome-ignore lint/correctness/useExhaustiveDependencies: it follows the parameters' value (paramsKey), not the object's identity on each render.
  useEffect(() => {
    episodeIdRef.current = new URL(window.location.href).searchParams.get("episode");
  }, [paramsKey]);

  // The URL names the episode once it is stored (at its first action): a reload before that
  // opens the task afresh instead of asking for an episode that was never written.
  const keepInUrl = (id: string) => {
    episodeIdRef.current = id;
    const url = new URL(window.location.href);
    if (url.searchParams.get("episode") !== id) {
      url.searchParams.set("episode", id);
      window.history.replaceState(window.history.state, "", url);
    }
  };

  const onMessage = (m: ServerMessage) => {
    const h = handlersRef.current;
    switch (m.type) {
      case "hello":
        if (episodeIdRef.current) socket.send({ type: "resume", episodeId: episodeIdRef.current }, true);
        else if (paramsRef.current) socket.send({ type: "open", ...paramsRef.current }, true);
        return;
      case "opened": {
        if (m.episode.stored !== false) keepInUrl(m.episode.id);
        else {
          episodeIdRef.current = null;
          const url = new URL(window.location.href);
          if (url.searchParams.has("episode")) {
            url.searchParams.delete("episode");
            window.history.replaceState(window.history.state, "", url);
          }
        }
        setEpisode(m.episode);
        setTask(m.task);
        setTurns(m.turns);
        setSubmitted(m.submitted ?? null);
        setRunning(false);
        setFatal(null);
        setLimitReached(m.episode.status === "running" && m.turns.length >= m.episode.turnLimit);
        setLastReward([...m.turns].reverse().find((t) => typeof t.reward === "number")?.reward ?? null);
        h.onOpened?.(m);
        return;
      }
      case "turnStart":
        setRunning(true);
        setEpisode((e) => {
          if (!e) return e;
          if (e.stored === false) keepInUrl(e.id);
          return { ...e, stored: true, firstActionAt: e.firstActionAt ?? Date.now() };
        });
        h.onTurnStart?.(m.index, m.action ?? "", m.source ?? "");
        return;
      case "output":
        h.onOutput?.(m.chunk);
        return;
      case "turnEnd":
        setRunning(false);
        setTurns((ts) => [
          ...ts.filter((t) => t.index !== m.index),
          { index: m.index, action: "", observation: m.observation, ok: m.ok, reward: m.reward ?? null },
        ]);
        if (typeof m.reward === "number") setLastReward(m.reward);
        h.onTurnEnd?.(m);
        return;
      case "submitted":
        setRunning(false);
        setSubmitted(m);
        setEpisode((e) => {
          if (!e) return e;
          if (e.stored === false) keepInUrl(e.id);
          return { ...e, stored: true, status: "submitted", endedAt: e.endedAt ?? Date.now() };
        });
        // A forced submit (at the turn limit) is not a turn (lib/episodes/rules.ts turnsTaken).
        if (!m.forced) setTurns((ts) => [...ts, { index: ts.length, action: "submit", observation: m.agentObservation, ok: true, reward: m.reward }]);
        return;
      case "limitReached":
        setLimitReached(true);
        h.onNotice?.(m.message, "limit");
        return;
      case "abandoned":
        setEpisode((e) => (e ? { ...e, status: "abandoned", endedAt: e.endedAt ?? Date.now() } : e));
        return;
      case "status":
        h.onNotice?.(m.message, "status");
        return;
      case "error":
        setRunning(false);
        if (m.fatal) setFatal(m.message);
        if (m.episodeStatus) {
          const status = m.episodeStatus;
          setEpisode((e) => (e && e.status === "running" ? { ...e, status, endedAt: status === "error" ? Date.now() : e.endedAt } : e));
        }
        h.onNotice?.(m.message, "error");
        return;
      case "pong":
        return;
    }
  };

  const socket = useLiveSocket(paramsKey, {
    onMessage,
    onNotice: (text) => handlersRef.current.onNotice?.(text, "error"),
    onClose: () => setRunning(false),
  });
  const { connection, send } = socket;

  const act = useCallback((text: string, source: "console" | "editor") => send({ type: "action", text, source }), [send]);
  const interrupt = useCallback(() => send({ type: "interrupt" }), [send]);
  const submit = useCallback((arg?: string) => send({ type: "submit", arg }), [send]);
  const restart = useCallback(() => {
    setSubmitted(null);
    setTurns([]);
    setLimitReached(false);
    setLastReward(null);
    return send({ type: "restart" });
  }, [send]);
  const abandon = useCallback((reason?: string) => send({ type: "abandon", reason }), [send]);
  /** Sends a batch of the recording; false (nothing said) when the socket is not open, so the batch waits. */
  const record = useCallback((chunk: RecordingChunk) => send({ type: "record", ...chunk }, true), [send]);

  return { connection, episode, task, turns, running, submitted, lastReward, limitReached, fatal, act, interrupt, submit, restart, abandon, record };
}
