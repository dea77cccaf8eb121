import "server-only";
import type { WebSocket } from "ws";
import { asStudioError } from "@/lib/errors";
import { parseClientMessage, type ActionMessage, type ClientMessage, type ControlMessage, type OpenMessage, type RecordMessage } from "./protocol";
import { serverMessageSchema, type LiveEventInput, type LoggedLiveEvent, type ServerMessageInput } from "./events";

/** Largest frame the socket accepts at all; between MAX_MESSAGE_BYTES and this, the client gets a clear error. */
export const WS_MAX_PAYLOAD = 1024 * 1024;

/** Messages a connection may have waiting for their turn (beyond that they are refused). */
export const MAX_QUEUED_MESSAGES = 64;

/** Receives the messages of the episode a connection is attached to. */
export type EpisodeListener = (message: LiveEventInput) => void;

/**
 * What a connection needs from the episodes it drives; the transport declares it and
 * ./live-episodes.ts's LiveEpisodeManager implements it (lib/http/participant-access.ts narrows
 * it for a study's participants), so this module depends on no store or sandbox.
 */
export interface PlaygroundEpisodes<Episode> {
  open(msg: OpenMessage, listener: EpisodeListener): Promise<Episode>;
  /** null when the episode is unknown. */
  resume(episodeId: string, listener: EpisodeListener): Promise<Episode | null>;
  detach(episode: Episode, listener: EpisodeListener): void;
  action(episode: Episode, text: string, source: ActionMessage["source"]): Promise<void>;
  interrupt(episode: Episode): void;
  submit(episode: Episode, arg?: string): Promise<void>;
  abandon(episode: Episode, reason?: string): Promise<void>;
  restart(episode: Episode, listener: EpisodeListener): Promise<Episode>;
  /** Stores a batch of the episode's recording (only the connection's own episode is ever written). */
  record(episode: Episode, chunk: RecordMessage): Promise<void>;
  /** Follows a live model episode's log from entry `from`; returns the way to stop. @throws NotFoundError */
  watch(id: string, from: number, listener: (entry: LoggedLiveEvent) => void): Promise<() => void>;
  /** Drives a live model episode (a person's action resolves once its turn is stored). */
  control(id: string, control: ControlMessage): Promise<void>;
}

/**
 * Serves one websocket connection: validates each client message, drives the episode it is
 * attached to through the manager, and forwards the episode's messages (validated against the
 * protocol) back. Errors are sent as `error` messages; the connection stays open.
 */
export function handlePlaygroundConnection<Episode>(ws: WebSocket, manager: PlaygroundEpisodes<Episode>): void {
  let episode: Episode | null = null;
  /** The model episode the connection watches, instead of playing an episode of its own. */
  let watching: { id: string; stop: () => void } | null = null;

  const send = (message: ServerMessageInput) => {
    if (ws.readyState !== ws.OPEN) return;
    const checked = serverMessageSchema.parse(message);
    ws.send(JSON.stringify(checked));
  };
  const sendEvent: EpisodeListener = (message: LiveEventInput) => send(message);
  const unwatch = () => {
    watching?.stop();
    watching = null;
  };
  /** The connection moves on from its episode (or watched one) to another. */
  const leave = () => {
    if (episode) manager.detach(episode, sendEvent);
    episode = null;
    unwatch();
  };
  const sendError = (err: unknown) => {
    const e = asStudioError(err);
    send({ type: "error", code: e.code, message: e.message, fatal: false });
  };

  const handle = async (msg: ClientMessage): Promise<void> => {
    switch (msg.type) {
      case "ping":
        send({ type: "pong", t: msg.t });
        return;
      case "open":
        leave();
        episode = await manager.open(msg, sendEvent);
        return;
      case "resume":
        leave();
        episode = await manager.resume(msg.episodeId, sendEvent);
        return;
      case "watch": {
        // A refused watch (unknown episode, a participant) leaves the connection as it was.
        const stop = await manager.watch(msg.id, msg.from, send);
        leave();
        // After its end the log takes no more entries: the watch stays, so a control hears that the episode ended.
        watching = { id: msg.id, stop };
        return;
      }
      case "control":
        if (!watching) {
          send({ type: "error", code: "bad_input", message: 'no model episode is watched: send "watch" before "control"', fatal: false });
          return;
        }
        return manager.control(watching.id, msg);
    }
    if (!episode) {
      send({ type: "error", code: "bad_input", message: `no episode is open: send "open" or "resume" before "${msg.type}"`, fatal: false });
      return;
    }
    switch (msg.type) {
      case "action":
        return manager.action(episode, msg.text, msg.source);
      case "interrupt":
        return manager.interrupt(episode);
      case "submit":
        return manager.submit(episode, msg.arg);
      case "abandon":
        return manager.abandon(episode, msg.reason);
      case "restart":
        episode = await manager.restart(episode, sendEvent);
        return;
      case "record":
        return manager.record(episode, msg);
    }
  };

  // A connection's messages are handled in the order they came: open, resume, restart, submit and
  // abandon one at a time (concurrent opens each took a sandbox and stayed attached, past the
  // cap). An action waits only behind those; with none waiting it runs at once, so a second
  // action during one is refused as before. Ping and interrupt go straight through (an interrupt
  // must reach the action it stops).
  let queue: Promise<void> = Promise.resolve();
  let records: Promise<void> = Promise.resolve();
  let queued = 0;
  let closed = false;
  const enqueue = (msg: ClientMessage) => {
    // A control, like an action, waits only behind a watch (or open...) still in progress; else it
    // goes straight through, so a stop reaches a model's turn while a person's action (which
    // answers once stored) still runs.
    if (msg.type === "ping" || msg.type === "interrupt" || ((msg.type === "action" || msg.type === "control") && queued === 0))
      return void handle(msg).catch(sendError);
    // Recording batches keep their order among themselves, and wait for nothing else.
    if (msg.type === "record") {
      // The episode as it is now: a last batch sent as the page closes is still stored after the close.
      const ep = episode;
      records = records.then(() => (ep ? manager.record(ep, msg) : handle(msg))).catch(sendError);
      return;
    }
    if (queued >= MAX_QUEUED_MESSAGES) {
      send({
        type: "error",
        code: "limit_reached",
        message: `rejected message: ${queued} messages are waiting on this connection; wait for their answers`,
        fatal: false,
      });
      return;
    }
    queued++;
    queue = queue
      .then(() => (closed ? undefined : handle(msg)))
      .catch(sendError)
      .finally(() => {
        queued--;
        // An episode opened after the connection closed is left unwatched (free to evict) at once.
        if (closed) leave();
      });
  };

  ws.on("message", (data, isBinary) => {
    if (isBinary) {
      send({ type: "error", code: "bad_input", message: "binary messages are not part of the protocol: send JSON text", fatal: false });
      return;
    }
    const raw = Buffer.isBuffer(data) ? data.toString("utf8") : Array.isArray(data) ? Buffer.concat(data).toString("utf8") : Buffer.from(data).toString("utf8");
    const parsed = parseClientMessage(raw);
    if (!parsed.ok) {
      send({
        type: "error",
        code: parsed.reason.includes("larger than") ? "limit_reached" : "bad_input",
        message: `rejected message: ${parsed.reason}`,
        fatal: false,
      });
      return;
    }
    enqueue(parsed.message);
  });

  // Closing leaves the episode unwatched: its sandbox stays for a reconnect to resume, but the
  // pool may take it at once for another episode.
  ws.on("close", () => {
    closed = true;
    leave();
  });

  send({ type: "hello", version: 1 });
}
