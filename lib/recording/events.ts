/**
 * A playground episode's recording: every console keystroke ("i"), everything the console drew
 * ("o") and every editor change ("e"), each with its time. The browser batches events into chunks
 * (one turn's at most) and sends them over the websocket; the store keeps the chunks per turn
 * (lib/db/recordings.ts). Client-safe: no server code.
 */
import { z } from "zod";

/** i: console input (keys or a paste), o: console output (what xterm was given), e: an editor change. */
export const RECORDING_KINDS = ["i", "o", "e"] as const;
export type RecordingKind = (typeof RECORDING_KINDS)[number];

/** Largest chunk the browser sends (bytes of its events' data); a longer run of events is split. */
export const MAX_CHUNK_BYTES = 48 * 1024;
/** Events in one chunk at most. */
export const MAX_CHUNK_EVENTS = 2000;
/** The browser sends what it has at least this often (ms). */
export const FLUSH_INTERVAL_MS = 2000;
/** Default cap of an episode's stored recording (bytes of event data); IC_RECORDING_MAX_BYTES changes it. */
export const DEFAULT_RECORDING_MAX_BYTES = 4 * 1024 * 1024;

/** One event: ms after its chunk's start, the kind, the data (for "e", the change as JSON: {o: offset, l: replaced length, t: text}[]). */
export const recordingEventSchema = z.tuple([z.number().int().nonnegative().max(86_400_000), z.enum(RECORDING_KINDS), z.string().max(MAX_CHUNK_BYTES)]);
export type RecordingEvent = z.infer<typeof recordingEventSchema>;

export const recordingChunkSchema = z.object({
  /** The turn the events lead to or belong to: the typing of an action and its output are turn k's. */
  turnIndex: z.number().int().nonnegative().max(100_000),
  /** ms since the epoch of the chunk's first event. */
  startedAt: z.number().int().positive(),
  events: z.array(recordingEventSchema).min(1).max(MAX_CHUNK_EVENTS),
  /** The console's size when the chunk was sent. */
  cols: z.number().int().positive().max(1000).optional(),
  rows: z.number().int().positive().max(1000).optional(),
});
export type RecordingChunk = z.infer<typeof recordingChunkSchema>;

/** A stored chunk as the replay and the exports read it. */
export interface StoredRecordingChunk extends RecordingChunk {
  seq: number;
  bytes: number;
}

/** An episode's recording: its chunks in order, and whether the cap cut it short. */
export interface Recording {
  chunks: StoredRecordingChunk[];
  bytes: number;
  /** True when events were dropped at the episode's cap (IC_RECORDING_MAX_BYTES). */
  truncated: boolean;
  /** The terminal's size when recorded (the asciicast header's), when known. */
  cols: number | null;
  rows: number | null;
}

/** Bytes a chunk's events count against the cap (their data's length, in UTF-16 units: cheap and bounded). */
export function chunkBytes(events: readonly RecordingEvent[]): number {
  let n = 0;
  for (const e of events) n += e[2].length + 8;
  return n;
}

/** One event at an absolute time, as the replay plays it. */
export interface TimedEvent {
  /** ms since the recording's first event. */
  t: number;
  kind: RecordingKind;
  data: string;
  turnIndex: number;
}

/** The recording's events on one clock (ms since its first event), in order. */
export function timeline(recording: Pick<Recording, "chunks">): TimedEvent[] {
  const chunks = [...recording.chunks].sort((a, b) => a.seq - b.seq);
  const t0 = chunks[0]?.startedAt ?? 0;
  const out: TimedEvent[] = [];
  for (const c of chunks) for (const [dt, kind, data] of c.events) out.push({ t: Math.max(0, c.startedAt + dt - t0), kind, data, turnIndex: c.turnIndex });
  // Chunks are sent in order, but clamp so time never runs backwards.
  for (let i = 1; i < out.length; i++) if (out[i].t < out[i - 1].t) out[i].t = out[i - 1].t;
  return out;
}

/**
 * The console part of a recording as asciicast v2 (https://docs.asciinema.org/manual/asciicast/v2/):
 * a header line, then one `[seconds, "o" | "i", data]` line per event. Editor changes are not
 * terminal events and stay out (the JSONL export carries them).
 */
export function toAsciicast(recording: Recording, meta: { title?: string; timestamp?: number } = {}): string {
  const chunks = [...recording.chunks].sort((a, b) => a.seq - b.seq);
  const header: Record<string, unknown> = {
    version: 2,
    width: recording.cols ?? 80,
    height: recording.rows ?? 24,
    ...(chunks[0] ? { timestamp: Math.floor(chunks[0].startedAt / 1000) } : meta.timestamp ? { timestamp: meta.timestamp } : {}),
    ...(meta.title ? { title: meta.title } : {}),
    env: { TERM: "xterm-256color" },
  };
  const lines = [JSON.stringify(header)];
  for (const e of timeline(recording)) {
    if (e.kind === "e") continue;
    lines.push(JSON.stringify([Number((e.t / 1000).toFixed(6)), e.kind, e.data]));
  }
  return lines.join("\n") + "\n";
}

/** Longest pause the replay plays as it was (ms); a longer one is shortened to it, as cast players' idle limit. */
export const PLAYBACK_IDLE_LIMIT_MS = 2000;

/** The timeline with every pause longer than `limitMs` shortened to it (the replay's clock). */
export function limitIdle(events: readonly TimedEvent[], limitMs = PLAYBACK_IDLE_LIMIT_MS): TimedEvent[] {
  let shift = 0;
  return events.map((e, i) => {
    if (i > 0) {
      const gap = e.t - events[i - 1].t;
      if (gap > limitMs) shift += gap - limitMs;
    }
    return { ...e, t: e.t - shift };
  });
}

/** Applies one recorded editor change ("e" event data) to the editor's text. */
export function applyEditorChange(text: string, data: string): string {
  let changes: { o: number; l: number; t: string }[];
  try {
    changes = JSON.parse(data) as { o: number; l: number; t: string }[];
  } catch {
    return text;
  }
  // Monaco's changes of one edit do not overlap; apply from the end so offsets stay valid.
  for (const c of [...changes].sort((a, b) => b.o - a.o)) text = text.slice(0, c.o) + c.t + text.slice(c.o + c.l);
  return text;
}
