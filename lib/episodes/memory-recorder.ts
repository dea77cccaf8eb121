/**
 * An EpisodeRecorder that keeps episodes in memory, for the session's unit tests (no database).
 * It refuses what the store refuses: a turn for an episode that is not running, a turn index
 * already taken, a second end.
 */
import { ConflictError, NotFoundError } from "@/lib/errors";
import type { EpisodeRecorder, EpisodeStart } from "./recorder";
import type { EpisodeEnd, Turn } from "./turn";

export interface MemoryEpisode {
  id: string;
  start: EpisodeStart;
  status: "running" | EpisodeEnd["status"];
  turns: Turn[];
  end: EpisodeEnd | null;
}

export interface MemoryRecorder extends EpisodeRecorder {
  readonly episodes: Map<string, MemoryEpisode>;
  /** Every call in order, for tests that check what was written when. */
  readonly calls: string[];
}

export function memoryRecorder(): MemoryRecorder {
  const episodes = new Map<string, MemoryEpisode>();
  const calls: string[] = [];
  let next = 0;
  const get = (id: string) => {
    const ep = episodes.get(id);
    if (!ep) throw new NotFoundError(`episode ${id}`);
    return ep;
  };
  return {
    episodes,
    calls,
    async startEpisode(start) {
      const id = start.id ?? `mem-${++next}`;
      if (episodes.has(id)) throw new ConflictError(`episode ${id} exists`);
      episodes.set(id, { id, start, status: "running", turns: [], end: null });
      calls.push(`start ${id}`);
      return id;
    },
    async appendTurn(id, turn) {
      const ep = get(id);
      if (ep.status !== "running") throw new ConflictError(`episode ${id} is ${ep.status}, not running: it takes no more turns`);
      if (ep.turns.some((t) => t.index === turn.index)) throw new ConflictError(`episode ${id} already has turn ${turn.index}`);
      ep.turns.push(turn);
      calls.push(`turn ${id} ${turn.index}`);
    },
    async finishEpisode(id, end) {
      const ep = get(id);
      if (end.status !== "interrupted" && ep.status !== "running" && ep.status !== "interrupted")
        throw new ConflictError(`episode ${id} already ended (${ep.status})`);
      ep.status = end.status;
      ep.end = end;
      calls.push(`end ${id} ${end.status}`);
    },
    async reopenEpisode(id) {
      const ep = get(id);
      if (ep.status !== "interrupted") throw new ConflictError(`episode ${id} is ${ep.status}: only an interrupted episode can be resumed`);
      ep.status = "running";
      calls.push(`reopen ${id}`);
    },
  };
}
