import { FLUSH_INTERVAL_MS, MAX_CHUNK_BYTES, MAX_CHUNK_EVENTS, type RecordingChunk, type RecordingEvent, type RecordingKind } from "@/lib/recording/events";

/** Chunks held while they cannot be sent (episode not stored yet, connection down); beyond it the oldest go. */
const MAX_PENDING_CHUNKS = 64;

/**
 * The browser side of an episode's recording: takes console keys, console output and editor
 * changes with their times, batches them into chunks (one turn's at most, bounded in size), and
 * hands each chunk to `send` every few seconds and at each turn's end. While sending is not
 * possible (the episode is not stored before its first action, or the socket is down) the chunks
 * wait, a bounded number of them. Capture is a push onto an array: cheap per keystroke.
 */
export class EpisodeRecorder {
  private events: RecordingEvent[] = [];
  private startedAt = 0;
  private bytes = 0;
  private turnIndex = 0;
  private pending: RecordingChunk[] = [];
  private timer: ReturnType<typeof setInterval> | null = null;
  /** Whether chunks may be sent now (the episode is stored). */
  enabled = false;

  constructor(
    private readonly send: (chunk: RecordingChunk) => boolean,
    private readonly size: () => { cols: number; rows: number } | null,
  ) {}

  start(): void {
    if (!this.timer) this.timer = setInterval(() => this.flush(), FLUSH_INTERVAL_MS);
  }

  stop(): void {
    this.flush();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Forgets everything held (another episode is opened). */
  reset(turnIndex: number): void {
    this.events = [];
    this.bytes = 0;
    this.pending = [];
    this.turnIndex = turnIndex;
    this.enabled = false;
  }

  push(kind: RecordingKind, data: string): void {
    if (!data) return;
    // An output larger than a chunk is split over several.
    for (let i = 0; i < data.length; i += MAX_CHUNK_BYTES) this.add(kind, data.slice(i, i + MAX_CHUNK_BYTES));
  }

  private add(kind: RecordingKind, data: string): void {
    const now = Date.now();
    if (this.events.length === 0) this.startedAt = now;
    this.events.push([now - this.startedAt, kind, data]);
    this.bytes += data.length + 8;
    if (this.bytes >= MAX_CHUNK_BYTES || this.events.length >= MAX_CHUNK_EVENTS) this.seal();
  }

  /** Events from now on belong to turn `index` (the ones so far are closed into a chunk and sent). */
  setTurn(index: number): void {
    if (index === this.turnIndex) return;
    this.seal();
    this.turnIndex = index;
    this.flush();
  }

  /** Closes the events so far into a chunk. */
  private seal(): void {
    if (this.events.length === 0) return;
    const size = this.size();
    this.pending.push({ turnIndex: this.turnIndex, startedAt: this.startedAt, events: this.events, ...(size ? { cols: size.cols, rows: size.rows } : {}) });
    if (this.pending.length > MAX_PENDING_CHUNKS) this.pending.shift();
    this.events = [];
    this.bytes = 0;
  }

  /** Sends what is held, in order, while sending works. */
  flush(): void {
    this.seal();
    if (!this.enabled) return;
    while (this.pending.length > 0) {
      if (!this.send(this.pending[0])) return;
      this.pending.shift();
    }
  }
}
