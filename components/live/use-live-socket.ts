"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { ServerMessage } from "@/lib/live/events";
import { type ClientMessageInput, parseServerMessage } from "@/lib/live/protocol";

export type ConnectionState = "connecting" | "open" | "reconnecting" | "closed";

export interface LiveSocketHandlers {
  /** Every server message, checked against the live channel's schema. A `hello` asks the page to (re)open what it shows. */
  onMessage(m: ServerMessage): void;
  /** A message the page could not read, or a send with no connection. */
  onNotice?(text: string): void;
  /** The connection dropped (a reconnect follows). */
  onClose?(): void;
}

/**
 * The browser side of the live channel: one websocket to `/ws` while `key` is non-null (a new key,
 * a new connection), reconnected with back-off when it drops; every server message is parsed with
 * the shared schema (lib/live/events.ts) before the page sees it. The page's own hook (a person's
 * episode, use-episode.ts; a watched model's, use-agent-run.ts) answers each `hello` with what it
 * shows (open, resume or watch), so a reconnect resumes where it was.
 */
export function useLiveSocket(key: string | null, handlers: LiveSocketHandlers) {
  const handlersRef = useRef(handlers);
  handlersRef.current = handlers;
  const wsRef = useRef<WebSocket | null>(null);
  const [connection, setConnection] = useState<ConnectionState>("connecting");

  /** Sends a message; false (and a notice) when not connected. */
  const send = useCallback((msg: ClientMessageInput, quiet = false) => {
    const ws = wsRef.current;
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      if (!quiet) handlersRef.current.onNotice?.("not connected to the server: reconnecting…");
      return false;
    }
    ws.send(JSON.stringify(msg));
    return true;
  }, []);

  useEffect(() => {
    if (key === null) return;
    let stopped = false;
    let attempt = 0;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const connect = () => {
      const proto = window.location.protocol === "https:" ? "wss:" : "ws:";
      const ws = new WebSocket(`${proto}//${window.location.host}/ws`);
      wsRef.current = ws;
      ws.onopen = () => {
        attempt = 0;
        setConnection("open");
      };
      ws.onmessage = (ev) => {
        const parsed = parseServerMessage(typeof ev.data === "string" ? ev.data : "");
        if (!parsed.ok) {
          handlersRef.current.onNotice?.(`bad message from the server: ${parsed.reason}`);
          return;
        }
        handlersRef.current.onMessage(parsed.message);
      };
      ws.onclose = () => {
        if (wsRef.current === ws) wsRef.current = null;
        handlersRef.current.onClose?.();
        if (stopped) return;
        setConnection("reconnecting");
        attempt++;
        timer = setTimeout(connect, Math.min(5000, 250 * 2 ** Math.min(attempt, 5)));
      };
    };
    connect();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      wsRef.current?.close();
      wsRef.current = null;
      setConnection("closed");
    };
  }, [key]);

  return { connection, send };
}
