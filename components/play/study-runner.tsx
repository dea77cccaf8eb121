"use client";

import { useEffect, useState } from "react";
import { ANNOTATOR_KEY, AnnotatorForm } from "@/components/play/annotator-form";

/** Asks for the annotator's name once, then goes to their next task in the study. */
export function StudyRunner({ id, name, total }: { id: string; name: string; total: number }) {
  const [annotator, setAnnotator] = useState<string | null>(null);
  const [state, setState] = useState<{ done: number; finished: boolean } | null>(null);
  const [error, setError] = useState<string | null>(null);

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

  if (!annotator)
    return <AnnotatorForm title={`Study: ${name}`} intro={`${total} tasks. Your name or code is stored with each episode.`} onSave={setAnnotator} />;
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
