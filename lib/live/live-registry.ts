/**
 * The live episodes of this process, a person's and a model's alike, by their live id and by
 * their stored episode's id (a model's episode is named in the page's URL by either). Held on
 * globalThis: the Next.js route handlers that start a model and the server that carries the
 * websocket load their own copies of these modules, and must see one registry. Client-safe.
 */

/** What the registry needs of a live episode. */
export interface LiveEntry {
  readonly id: string;
  /** Who acts: a person from the websocket, or a model from lib/agent's loop (which a person may take over). */
  readonly actor: "person" | "model";
}

type State = { episodes: Map<string, LiveEntry>; aliases: Map<string, string>; deadlines: Map<string, NodeJS.Timeout> };
const state: State = ((globalThis as Record<string, unknown>).__icStudioLive ??= {
  episodes: new Map(),
  aliases: new Map(),
  deadlines: new Map(),
}) as State;

export function registerLive(ep: LiveEntry): void {
  state.episodes.set(ep.id, ep);
}

/** The episode is also found by `storedId` (its stored episode's id, once it has one). */
export function aliasLive(storedId: string, ep: LiveEntry): void {
  if (storedId !== ep.id) state.aliases.set(storedId, ep.id);
}

/** The live episode of this actor with this id or stored episode id. */
export function findLive<E extends LiveEntry>(id: string, actor: E["actor"]): E | undefined {
  const ep = state.episodes.get(id) ?? state.episodes.get(state.aliases.get(id) ?? "");
  return ep?.actor === actor ? (ep as E) : undefined;
}

/** The live episodes of an actor. */
export function listLive<E extends LiveEntry>(actor: E["actor"]): E[] {
  return [...state.episodes.values()].filter((ep): ep is E => ep.actor === actor);
}

/** Forgets the episode (its stored episode stays), now or `afterMs` from now. */
export function forgetLive(ep: LiveEntry, afterMs = 0): void {
  clearTimeout(state.deadlines.get(ep.id));
  state.deadlines.delete(ep.id);
  const forget = () => {
    if (state.episodes.get(ep.id) !== ep) return;
    state.episodes.delete(ep.id);
    state.deadlines.delete(ep.id);
    for (const [alias, id] of state.aliases) if (id === ep.id) state.aliases.delete(alias);
  };
  if (afterMs <= 0) {
    forget();
    return;
  }
  const timer = setTimeout(forget, afterMs);
  timer.unref();
  state.deadlines.set(ep.id, timer);
}
