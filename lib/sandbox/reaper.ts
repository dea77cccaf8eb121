import "server-only";
import { EventEmitter } from "node:events";

/**
 * Every helper process and sandbox a process starts, in one registry: what it is, who owns it
 * (an engine's warm pool, a session of an episode, a sandbox pool), when it started, when it was
 * last used and its idle deadline. A reaper ends those idle past their deadline; `reaped` events
 * let a test (or the status page) watch it.
 *
 * The registry lives on globalThis: Next.js bundles and server.ts each load their own copy of this
 * file, and one process must have one list (the issue saw 11 SQLite helpers outlive their
 * episodes because each copy of the SQL engine kept its own warm pool, with no deadline).
 */

/** The kinds of resource the server starts. */
export type ResourceKind = "sqlite-helper" | "sandbox";

/** What the registry holds of one live resource (plain data: the status page and doctor print it). */
export interface LiveResource {
  id: number;
  kind: ResourceKind;
  /** Who holds it: `pool:...` while it waits warm, else the session or episode using it. */
  owner: string;
  /** The OS process, when it is one (a SQLite helper). */
  pid: number | null;
  startedAt: number;
  lastUsedAt: number;
  /** Idle this long, and not busy, it is ended. */
  idleMs: number;
  /** A call is in flight: never reaped. */
  busy: boolean;
}

/** What the owner of a resource keeps to report its use. */
export interface ResourceHandle {
  readonly id: number;
  /** It was used now: its idle clock starts again. */
  touch(): void;
  setOwner(owner: string): void;
  setBusy(busy: boolean): void;
  /** It ended (closed by its owner, or died): forgotten by the registry. */
  release(): void;
}

interface Entry extends LiveResource {
  end: () => Promise<void>;
}

interface Registry {
  entries: Map<number, Entry>;
  next: number;
  timer: NodeJS.Timeout | null;
  timerMs: number;
  events: EventEmitter;
}

const registry: Registry = ((globalThis as Record<string, unknown>).__icStudioResources ??= {
  entries: new Map(),
  next: 1,
  timer: null,
  timerMs: 0,
  events: new EventEmitter().setMaxListeners(0),
}) as Registry;

/** How often the reaper looks: a quarter of the shortest deadline, between 250 ms and a minute. */
function reaperInterval(): number {
  let min = Infinity;
  for (const e of registry.entries.values()) min = Math.min(min, e.idleMs);
  return Math.min(60_000, Math.max(250, Math.floor(min / 4)));
}

function schedule(): void {
  if (registry.entries.size === 0) {
    if (registry.timer) clearInterval(registry.timer);
    registry.timer = null;
    return;
  }
  const ms = reaperInterval();
  if (registry.timer && registry.timerMs <= ms) return;
  if (registry.timer) clearInterval(registry.timer);
  registry.timerMs = ms;
  registry.timer = setInterval(() => void reapIdleResources(), ms);
  // The reaper never keeps a process alive by itself.
  registry.timer.unref();
}

/**
 * Registers a resource that `end` frees (kills the process, closes the sandbox). The owner calls
 * `touch` when it uses it and `release` once it has ended it itself.
 */
export function registerResource(r: { kind: ResourceKind; owner: string; pid?: number | null; idleMs: number; end: () => Promise<void> }): ResourceHandle {
  const id = registry.next++;
  const now = Date.now();
  const entry: Entry = { id, kind: r.kind, owner: r.owner, pid: r.pid ?? null, startedAt: now, lastUsedAt: now, idleMs: r.idleMs, busy: false, end: r.end };
  registry.entries.set(id, entry);
  schedule();
  return {
    id,
    touch: () => {
      entry.lastUsedAt = Date.now();
    },
    setOwner: (owner) => {
      entry.owner = owner;
      entry.lastUsedAt = Date.now();
    },
    setBusy: (busy) => {
      entry.busy = busy;
      entry.lastUsedAt = Date.now();
    },
    release: () => {
      if (registry.entries.delete(id)) schedule();
    },
  };
}

/** The live resources of this process, oldest first, with their ages (ms) at `now`. */
export function listLiveResources(now = Date.now()): Array<LiveResource & { ageMs: number; idleForMs: number }> {
  return [...registry.entries.values()]
    .sort((a, b) => a.startedAt - b.startedAt)
    .map(({ end: _end, ...e }) => ({ ...e, ageMs: now - e.startedAt, idleForMs: now - e.lastUsedAt }));
}

/**
 * Ends every resource idle past its deadline and not busy; resolves to those ended. Each is
 * announced as a `reaped` event (see onResourceReaped) once ended.
 */
export async function reapIdleResources(now = Date.now()): Promise<LiveResource[]> {
  const due = [...registry.entries.values()].filter((e) => !e.busy && now - e.lastUsedAt >= e.idleMs);
  const out: LiveResource[] = [];
  for (const e of due) {
    registry.entries.delete(e.id);
    const { end, ...plain } = e;
    try {
      await end();
    } catch {
      // It is gone from the registry either way; a resource that fails to end is already dead.
    }
    out.push(plain);
    registry.events.emit("reaped", plain);
  }
  if (due.length) schedule();
  return out;
}

/** Calls `listener` with each resource the reaper ends; returns the unsubscribe. */
export function onResourceReaped(listener: (r: LiveResource) => void): () => void {
  registry.events.on("reaped", listener);
  return () => registry.events.off("reaped", listener);
}
