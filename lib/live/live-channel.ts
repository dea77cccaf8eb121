/**
 * Who is attached to one live episode, a person's or a model's: the one attach, reattach and
 * detach path. A person's episode has one player at a time (another window takes it over, and the
 * first hears so) and sends its events as they are, with the episode's state in `opened` on a
 * reattach; a model's has any number of watchers and numbers its events in a log, so a watcher
 * that reattaches asks for the log from the entry after the last it saw. Client-safe.
 */
import { liveEventSchema, type LiveEventInput, type LoggedLiveEvent } from "./events";

export type ChannelListener<M> = (message: M) => void;

export class LiveChannel<M> {
  private readonly listeners = new Set<ChannelListener<M>>();
  private readonly entries: M[] | null;
  private ended = false;

  private constructor(
    /** The message a listener receives for an event, given the event's number in the log. */
    private readonly wrap: (event: LiveEventInput, seq: number) => M,
    logged: boolean,
    /** One listener at a time: a new one takes over from the one before. */
    private readonly exclusive: boolean,
  ) {
    this.entries = logged ? [] : null;
  }

  /** A person's episode: one player, events as they are. */
  static player(): LiveChannel<LiveEventInput> {
    return new LiveChannel<LiveEventInput>((event) => event, false, true);
  }

  /** A model's episode: any number of watchers, events numbered in a log (checked once, here, against the vocabulary every viewer parses). */
  static logged(): LiveChannel<LoggedLiveEvent> {
    return new LiveChannel<LoggedLiveEvent>((event, seq) => ({ type: "logged", seq, event: liveEventSchema.parse(event) }), true, false);
  }

  /** The log so far (empty for a channel that keeps none). */
  get log(): readonly M[] {
    return this.entries ?? [];
  }

  get watched(): boolean {
    return this.listeners.size > 0;
  }

  /**
   * Attaches a listener: it first gets the log from entry `from`, then each message as it comes
   * (none after the channel ended). On a player's channel the listener takes the episode from the
   * one attached before it, which is told so. Returns the way to detach.
   */
  attach(listener: ChannelListener<M>, from = 0): () => void {
    if (this.exclusive) {
      for (const other of this.listeners) {
        if (other !== listener) other(this.wrap({ type: "error", code: "conflict", message: "this episode was opened in another window", fatal: true }, -1));
      }
      this.listeners.clear();
    }
    for (const entry of this.log.slice(from)) listener(entry);
    if (this.ended) return () => {};
    this.listeners.add(listener);
    return () => this.detach(listener);
  }

  detach(listener: ChannelListener<M>): void {
    this.listeners.delete(listener);
  }

  /** Detaches everyone (the episode's sandbox went away; a reconnect resumes it). */
  detachAll(): void {
    this.listeners.clear();
  }

  send(event: LiveEventInput): void {
    const message = this.wrap(event, this.entries?.length ?? 0);
    this.entries?.push(message);
    for (const l of this.listeners) l(message);
  }

  /** The episode ended: a listener attached from now on only reads the log. */
  end(): void {
    this.ended = true;
  }
}
