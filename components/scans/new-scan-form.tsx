"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import type { StartScanInput } from "@/lib/scan/scan-options";

type Option = { id: string; available: boolean; reason: string | null };
const field = "rounded border border-zinc-700 bg-zinc-900 px-1 py-0.5 text-xs text-zinc-100";

/** Start a scanner: a yes/no question put to a model about each episode a filter matches. A refusal is shown with the field it names. */
export function NewScanForm({ models, maxEpisodes }: { models: Option[]; maxEpisodes: number }) {
  const router = useRouter();
  const [question, setQuestion] = useState("");
  const [tag, setTag] = useState("");
  const [model, setModel] = useState(models.find((m) => m.available)?.id ?? "");
  const [filter, setFilter] = useState("");
  const [limit, setLimit] = useState("20");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    const body: StartScanInput = { question, tag, model, filter, limit: Number(limit) };
    try {
      const res = await fetch("/api/scans", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const json = (await res.json().catch(() => ({}))) as { scanId?: string; error?: { message?: string } };
      if (!res.ok || !json.scanId) throw new Error(json.error?.message ?? `HTTP ${res.status}`);
      setQuestion("");
      router.refresh();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      onSubmit={submit}
      className="grid max-w-3xl grid-cols-[9rem_1fr] items-center gap-x-3 gap-y-2 rounded border border-zinc-800 p-3 text-xs"
      aria-label="new scan"
    >
      <label htmlFor="scan-question">question</label>
      <textarea
        id="scan-question"
        data-testid="scan-question"
        rows={2}
        className={field}
        required
        value={question}
        onChange={(e) => setQuestion(e.target.value)}
        placeholder="Did the agent give up with turns left?"
      />
      <label htmlFor="scan-tag">tag of a yes</label>
      <input
        id="scan-tag"
        data-testid="scan-tag"
        className={field}
        required
        value={tag}
        onChange={(e) => setTag(e.target.value)}
        placeholder="gave-up-early"
        aria-describedby="scan-tag-help"
      />
      <span />
      <span id="scan-tag-help" className="text-zinc-400">
        A no is stored as TAG:no, a failed call as TAG:error. Use a tag people use, so the page can check the scanner against them.
      </span>
      <label htmlFor="scan-model">model</label>
      <select id="scan-model" data-testid="scan-model" className={field} value={model} onChange={(e) => setModel(e.target.value)}>
        {models.map((m) => (
          <option key={m.id} value={m.id} disabled={!m.available} title={m.reason ?? undefined}>
            {m.id}
            {m.available ? "" : " (unavailable)"}
          </option>
        ))}
      </select>
      <label htmlFor="scan-filter">episodes</label>
      <input
        id="scan-filter"
        data-testid="scan-filter"
        className={field}
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
        placeholder="env=sql,model=gpt-4,success=false (empty: all)"
      />
      <label htmlFor="scan-limit">at most (newest first)</label>
      <input
        id="scan-limit"
        data-testid="scan-limit"
        type="number"
        min={1}
        max={maxEpisodes}
        className={`${field} w-20`}
        value={limit}
        onChange={(e) => setLimit(e.target.value)}
      />
      <span />
      <div className="flex items-center gap-3">
        <Button type="submit" variant="primary" data-testid="scan-start" disabled={busy || !model}>
          {busy ? "Starting…" : "Start scan"}
        </Button>
        {error && (
          <span role="alert" data-testid="scan-error" className="text-red-400">
            {error}
          </span>
        )}
      </div>
    </form>
  );
}
