"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import type { ParticipantProgress } from "@/lib/studies/participant-progress";
import { formatDuration } from "@/lib/format-date";

/** A participant's study page: instructions and consent, then their next task, and their completion code at the end. */
export function ParticipantLanding({ progress }: { progress: ParticipantProgress }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const { study } = progress;

  const consent = async () => {
    setBusy(true);
    setError(null);
    try {
      const r = await fetch(`/api/studies/${encodeURIComponent(study.id)}/consent`, { method: "POST" });
      if (!r.ok) throw new Error(((await r.json()) as { error?: { message: string } }).error?.message ?? `HTTP ${r.status}`);
      window.location.reload();
    } catch (e) {
      setError((e as Error).message);
      setBusy(false);
    }
  };

  return (
    <div className="mx-auto mt-12 max-w-2xl space-y-4 text-sm" data-testid="participant-landing">
      <h1 className="text-lg font-semibold">Study: {study.name}</h1>
      <p className="text-zinc-300">
        You are participant{" "}
        <span className="font-mono font-semibold" data-testid="participant-label">
          {progress.label}
        </span>
        . {progress.total} tasks
        {study.timeLimitMs ? <>, at most {formatDuration(study.timeLimitMs)} of active time each</> : null}. Done:{" "}
        <span data-testid="participant-done">{progress.done}</span> / {progress.total}.
      </p>
      {study.instructions && (
        <section aria-label="instructions" className="whitespace-pre-wrap rounded border border-zinc-800 p-3 text-zinc-200" data-testid="study-instructions">
          {study.instructions}
        </section>
      )}
      {progress.completionCode ? (
        <section className="rounded border border-emerald-700/60 bg-emerald-950/30 p-4" aria-label="completion">
          <p className="text-emerald-200">All tasks are done. Thank you! Your completion code:</p>
          <p className="mt-2 font-mono text-2xl tracking-widest text-zinc-50" data-testid="completion-code">
            {progress.completionCode}
          </p>
        </section>
      ) : !progress.consented ? (
        <section className="space-y-2 rounded border border-zinc-800 p-3" aria-label="consent">
          <p className="text-zinc-300">
            Your actions in each task (commands, edits, their times) are recorded for research and stored with the code {progress.label}, not your name. You may
            skip any task or stop at any time.
          </p>
          <Button variant="primary" onClick={consent} disabled={busy} data-testid="consent">
            I agree, start the study
          </Button>
        </section>
      ) : progress.href ? (
        <p>
          <a className="rounded bg-emerald-700 px-4 py-2 font-medium text-white hover:bg-emerald-600" href={progress.href} data-testid="next-task">
            {progress.done ? "Go on to your next task" : "Start the first task"} ({progress.position + 1} / {progress.total})
          </a>
        </p>
      ) : null}
      {error && (
        <p className="text-red-300" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
