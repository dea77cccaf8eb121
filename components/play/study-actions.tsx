"use client";

import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { Button } from "@/components/ui/button";

/** The owner's study actions: a logged reveal of the sealed outcomes, and closing the study. */
export function StudyActions({ studyId, sealed, visible }: { studyId: string; sealed: boolean; visible: boolean }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const post = async (path: string, body?: unknown) => {
    setError(null);
    const r = await fetch(`/api/studies/${encodeURIComponent(studyId)}/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body ?? {}),
    });
    if (!r.ok) setError(((await r.json()) as { error?: { message: string } }).error?.message ?? `HTTP ${r.status}`);
    router.refresh();
  };
  return (
    <div className="flex flex-wrap items-center gap-2 text-xs">
      {sealed && !visible && (
        <Button variant="primary" onClick={() => post("reveal", { what: "results" })} data-testid="reveal">
          Reveal the outcomes (logged)
        </Button>
      )}
      {sealed && (
        <Button
          variant="danger"
          onClick={() => window.confirm("Close the study? Invites stop working and its tasks' seal lifts.") && post("close")}
          data-testid="close-study"
        >
          Close the study
        </Button>
      )}
      {error && (
        <span role="alert" className="text-red-300">
          {error}
        </span>
      )}
    </div>
  );
}

/** Re-renders the page's server data every `ms` (live progress). */
export function AutoRefresh({ ms }: { ms: number }) {
  const router = useRouter();
  useEffect(() => {
    const t = setInterval(() => router.refresh(), ms);
    return () => clearInterval(t);
  }, [router, ms]);
  return null;
}
