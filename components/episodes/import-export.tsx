"use client";

import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import { Button } from "@/components/ui/button";

interface FileReport {
  file: string;
  episodes: number;
  added: number;
  skipped: number;
  rejected: { record: string; reason: string }[];
  /** Episodes stored with a flag (what is odd about them as logged), and how many per flag. */
  flagged: number;
  flags: Record<string, number>;
  error?: string;
}

/** Upload InterCode logs, JSONL, Inspect eval logs or ATIF trajectories (imported on the server), and download the filtered set in any of the formats. */
export function ImportExport({ query }: { query: string }) {
  const router = useRouter();
  const input = useRef<HTMLInputElement>(null);
  const [dataset, setDataset] = useState("");
  const [busy, setBusy] = useState(false);
  const [reports, setReports] = useState<FileReport[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const upload = async () => {
    const files = input.current?.files;
    if (!files?.length) return setError("Choose one or more log files to import first.");
    const form = new FormData();
    for (const f of files) form.append("file", f);
    if (dataset.trim()) form.append("dataset", dataset.trim());
    setBusy(true);
    setError(null);
    try {
      const res = await fetch("/api/episodes/import", { method: "POST", body: form });
      const json = await res.json();
      if (!res.ok) throw new Error(json?.error?.message ?? `HTTP ${res.status}`);
      setReports(json.files);
      router.refresh();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
      if (input.current) input.current.value = "";
    }
  };
  const sep = query ? "&" : "?";
  return (
    <div className="flex flex-wrap items-center gap-2 text-xs" data-testid="import-export">
      <input
        ref={input}
        type="file"
        multiple
        accept=".json,.jsonl,.eval"
        className="text-zinc-400"
        data-testid="import-file"
        aria-label="log files to import"
      />
      <input
        className="w-32 rounded border border-zinc-700 bg-zinc-900 px-1"
        placeholder="dataset (optional)"
        value={dataset}
        onChange={(e) => setDataset(e.target.value)}
      />
      <Button onClick={upload} disabled={busy} data-testid="import-button">
        {busy ? "importing…" : "import"}
      </Button>
      <span className="ml-4 text-zinc-400">export filtered:</span>
      <a className="text-sky-400 underline" href={`/api/episodes/export${query}${sep}format=jsonl`} data-testid="export-jsonl">
        JSONL
      </a>
      <a className="text-sky-400 underline" href={`/api/episodes/export${query}${sep}format=intercode`}>
        InterCode
      </a>
      <a className="text-sky-400 underline" href={`/api/episodes/export${query}${sep}format=inspect`} data-testid="export-inspect">
        Inspect (.eval)
      </a>
      <a className="text-sky-400 underline" href={`/api/episodes/export${query}${sep}format=atif`} data-testid="export-atif">
        ATIF (Harbor trials, .zip)
      </a>
      {error && (
        <span className="text-red-300" role="alert" data-testid="import-error">
          {error}
        </span>
      )}
      {reports && (
        <span className="text-zinc-400" data-testid="import-report">
          {reports
            .map(
              (r) =>
                `${r.file}: ${
                  r.error
                    ? `not imported (${r.error})`
                    : `${r.added} added, ${r.skipped} already there${r.rejected.length ? `, ${r.rejected.length} rejected` : ""}${
                        r.flagged
                          ? `, ${r.flagged} flagged (${Object.entries(r.flags)
                              .map(([f, n]) => `${f} ${n}`)
                              .join(", ")})`
                          : ""
                      }`
                }`,
            )
            .join(" · ")}
        </span>
      )}
    </div>
  );
}
