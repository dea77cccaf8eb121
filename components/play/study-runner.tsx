"use client";

import { useEffect, useState } from "react";
import { Button } from "@/components/ui/button";

const ANNOTATOR_KEY = "icstudio.annotator";

/** Asks for the annotator's name once, then goes to their next task in the study. */
export function StudyRunner({ id, name, total }: { id: string; name: string; total: number }) {
  const [annotator, setAnnotator] = useState<string | null>(null);
  const [draft, setDraft] = useState("");
  const [state, setState] = useState<{ done: number; finished: boolean } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [nameError, setNameError] = useState<string | null>(null);

  useEffect(() => setAnnotator(window.localStorage.getItem(ANNOTATOR_KEY)), []);
  useEffect(() => {
    if (!annotator) return;
    fetch(`/api/studies/${encodeURIComponent(id)}/next?annotator=${encodeURIComponent(annotator)}`)
      .then((r) => r.json())
      .then((j: { href?: string | null; done?: number; error?: { message: string } }) => {
        if (j.error) return setError(j.error.message);
        if (j.href) window.location.replace(j.href);
        else setState({ done: j.done ?? total, finished: true });
      })
      .catch((e: Error) => setError(e.message));
  }, [annotator, id, total]);

  if (!annotator) {
    return (
      <form
        className="mx-auto mt-16 max-w-sm space-y-3 rounded border border-zinc-800 p-4"
        onSubmit={(e) => {
          e.preventDefault();
          if (!draft.trim()) return setNameError("Type your name or annotator code first: it is stored with every episode.");
          window.localStorage.setItem(ANNOTATOR_KEY, draft.trim());
          setAnnotator(draft.trim());
        }}
      >
        <h2 className="font-semibold">Study: {name}</h2>
        <p className="text-sm text-zinc-400">{total} tasks. Your name or code is stored with each episode.</p>
        <input
          autoFocus
          aria-label="annotator name"
          data-testid="annotator"
          value={draft}
          onChange={(e) => (setDraft(e.target.value), setNameError(null))}
          className="w-full rounded border border-zinc-700 bg-zinc-900 px-2 py-1"
        />
        {nameError && (
          <p className="text-xs text-red-300" role="alert" data-testid="annotator-error">
            {nameError}
          </p>
        )}
        <Button type="submit" variant="primary">
          Start
        </Button>
      </form>
    );
  }
  return (
    <div className="mx-auto mt-16 max-w-md text-sm">
      <h2 className="font-semibold">Study: {name}</h2>
      {error && <p className="text-red-400">{error}</p>}
      {state?.finished ? (
        <p className="mt-2 text-emerald-400">
          All {total} tasks done. Thank you, {annotator}.{" "}
          <a className="underline" href={`/play/study/${encodeURIComponent(id)}/results`}>
            See the study&apos;s results
          </a>
        </p>
      ) : (
        !error && <p className="mt-2 text-zinc-400">Opening your next task…</p>
      )}
    </div>
  );
}
