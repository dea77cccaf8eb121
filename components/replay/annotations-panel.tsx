"use client";

import { useCallback, useEffect, useState } from "react";
import { Button } from "@/components/ui/button";
import type { ReplayAnnotation } from "@/lib/db/episode-rows";
import type { SuggestedTag } from "@/lib/failures/suggest-tags";
import { sendJson, useAuthor } from "./use-author";
import { formatDate } from "@/lib/format-date";
import { WINDOW_TURNS } from "@/lib/db/replay-window";

/**
 * Tags and notes of the episode and of the current turn; suggested tags to accept or reject, on the
 * page of WINDOW_TURNS turns that holds the current one (asked again when the page changes, not at
 * every step) and on the episode.
 */
export function AnnotationsPanel({
  episodeId,
  current,
  turnCount,
  annotations,
  onChange,
}: {
  episodeId: string;
  current: number | null;
  turnCount: number;
  annotations: ReplayAnnotation[];
  onChange: () => Promise<void>;
}) {
  const [author, setAuthor] = useAuthor();
  const [tag, setTag] = useState("");
  const [note, setNote] = useState("");
  const [onTurn, setOnTurn] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [taxonomy, setTaxonomy] = useState<{ tag: string; description: string }[]>([]);
  const [suggestions, setSuggestions] = useState<SuggestedTag[]>([]);

  const page = Math.floor(Math.max(0, current ?? 0) / WINDOW_TURNS) * WINDOW_TURNS;
  const loadSuggestions = useCallback(async () => {
    const r = await sendJson<{ suggestions: SuggestedTag[] }>(
      `/api/episodes/${encodeURIComponent(episodeId)}/suggestions?from=${page}&limit=${WINDOW_TURNS}`,
      "GET",
    ).catch(() => ({ suggestions: [] }));
    setSuggestions(r.suggestions);
  }, [episodeId, page]);
  useEffect(() => {
    void sendJson<{ tags: { tag: string; description: string }[] }>("/api/annotations", "GET")
      .then((r) => setTaxonomy(r.tags))
      .catch(() => {});
  }, []);
  useEffect(() => {
    void loadSuggestions();
  }, [loadSuggestions]);

  const act = async (fn: () => Promise<unknown>) => {
    setError(null);
    try {
      await fn();
      await onChange();
      await loadSuggestions();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const turnIndex = onTurn ? current : null;
  const addTag = (name: string, status: "accepted" | "rejected" = "accepted", at: number | null = turnIndex) =>
    act(() => sendJson("/api/annotations", "POST", { kind: "tag", episodeId, turnIndex: at, tag: name, author, status }));

  // A person's tags and notes; the detectors' machine tags feed the failure groups, and reach a person here as suggestions.
  const shown = annotations.filter((a) => a.source === "person" && a.status !== "rejected");
  return (
    <section className="space-y-2 text-xs" data-testid="annotations">
      <div className="flex items-center gap-2">
        <h3 className="font-semibold text-zinc-300">Tags and notes</h3>
        <label className="ml-auto text-zinc-400">
          as{" "}
          <input
            className="w-24 rounded border border-zinc-700 bg-zinc-900 px-1"
            value={author}
            onChange={(e) => setAuthor(e.target.value)}
            aria-label="author"
          />
        </label>
      </div>
      <ul className="space-y-1">
        {shown.map((a) => (
          <li key={a.id} className="flex items-start gap-2" data-testid="annotation">
            <span className="text-zinc-400">{a.turnIndex === null ? "episode" : `turn ${a.turnIndex + 1}`}</span>
            {a.kind === "tag" ? <span className="rounded bg-zinc-800 px-1 text-emerald-300">{a.tag}</span> : <span className="text-zinc-200">{a.text}</span>}
            <span className="text-zinc-400">
              {a.author} · {formatDate(a.createdAt)}
            </span>
            <button
              type="button"
              className="ml-auto text-zinc-400 hover:text-red-400"
              aria-label="delete"
              onClick={() => act(() => sendJson(`/api/annotations/${a.id}`, "DELETE"))}
            >
              ×
            </button>
          </li>
        ))}
        {!shown.length && <li className="text-zinc-400">none yet</li>}
      </ul>
      <label className="flex items-center gap-1 text-zinc-400">
        <input type="checkbox" checked={onTurn} onChange={(e) => setOnTurn(e.target.checked)} /> on the current turn
        {current !== null ? ` (${current + 1})` : ""}
      </label>
      <form
        className="flex gap-1"
        onSubmit={(e) => {
          e.preventDefault();
          if (tag.trim()) void addTag(tag.trim().toLowerCase()).then(() => setTag(""));
        }}
      >
        <input
          list="tag-taxonomy"
          className="flex-1 rounded border border-zinc-700 bg-zinc-900 px-1"
          placeholder="tag (pick or type a new one)"
          value={tag}
          onChange={(e) => setTag(e.target.value)}
          data-testid="tag-input"
        />
        <datalist id="tag-taxonomy">
          {taxonomy.map((t) => (
            <option key={t.tag} value={t.tag}>
              {t.description}
            </option>
          ))}
        </datalist>
        <Button type="submit" data-testid="add-tag">
          Tag
        </Button>
      </form>
      <form
        className="flex gap-1"
        onSubmit={(e) => {
          e.preventDefault();
          if (note.trim())
            void act(() => sendJson("/api/annotations", "POST", { kind: "note", episodeId, turnIndex, text: note.trim(), author })).then(() => setNote(""));
        }}
      >
        <input
          className="flex-1 rounded border border-zinc-700 bg-zinc-900 px-1"
          placeholder="note"
          value={note}
          onChange={(e) => setNote(e.target.value)}
          data-testid="note-input"
        />
        <Button type="submit">Note</Button>
      </form>
      {error && <p className="text-red-400">{error}</p>}
      {suggestions.length > 0 && (
        <div data-testid="suggestions">
          <h4 className="mt-2 font-semibold text-zinc-400">
            Suggested{turnCount > WINDOW_TURNS ? ` (turns ${page + 1}–${Math.min(turnCount, page + WINDOW_TURNS)} and the episode)` : ""}
          </h4>
          <ul className="space-y-1">
            {suggestions.map((s) => (
              <li key={`${s.tag}@${s.turnIndex}`} className="flex items-center gap-2">
                <span className="text-zinc-400">{s.turnIndex === null ? "episode" : `turn ${s.turnIndex + 1}`}</span>
                <span className="rounded border border-dashed border-zinc-600 px-1 text-amber-300">{s.tag}</span>
                <span className="truncate text-zinc-400" title={s.reason}>
                  {s.reason}
                </span>
                <span className="ml-auto flex gap-1">
                  <Button onClick={() => addTag(s.tag, "accepted", s.turnIndex)}>accept</Button>
                  <Button onClick={() => addTag(s.tag, "rejected", s.turnIndex)}>reject</Button>
                </span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
