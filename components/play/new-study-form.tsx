"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";

/** Creates a study: a dataset slice or a seeded random sample, with its feedback and turn limit. */
export function NewStudyForm({ datasets }: { datasets: { name: string; env: string; tasks: number }[] }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const field = "rounded border border-zinc-700 bg-zinc-900 px-1.5 py-0.5";
  return (
    <form
      className="grid grid-cols-2 gap-2 rounded border border-zinc-800 p-3"
      aria-label="new study"
      onSubmit={async (e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        const ds = datasets.find((d) => d.name === f.get("dataset"));
        const kind = String(f.get("kind"));
        const body = {
          name: String(f.get("name")),
          env: ds?.env,
          dataset: ds?.name,
          selection:
            kind === "random"
              ? { kind, count: Number(f.get("count")), seed: Number(f.get("seed")) }
              : { kind, from: Number(f.get("from")), count: Number(f.get("count")) },
          feedback: String(f.get("feedback")),
          turnLimit: Number(f.get("turnLimit")),
          assign: String(f.get("assign")),
          showGoldAfterSubmit: f.get("showGold") === "on",
          timeLimitMs: Number(f.get("timeLimitMin")) > 0 ? Math.round(Number(f.get("timeLimitMin")) * 60_000) : null,
          instructions: String(f.get("instructions") ?? ""),
        };
        const res = await fetch("/api/studies", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
        const j = (await res.json()) as { error?: { message: string } };
        if (!res.ok) return setError(j.error?.message ?? `HTTP ${res.status}`);
        setError(null);
        router.refresh();
      }}
    >
      <h2 className="col-span-2 font-semibold">New study</h2>
      <label className="flex flex-col text-xs text-zinc-400">
        Name
        <input name="name" required className={field} />
      </label>
      <label className="flex flex-col text-xs text-zinc-400">
        Dataset
        <select name="dataset" className={field}>
          {datasets.map((d) => (
            <option key={d.name} value={d.name}>
              {d.name} ({d.env}, {d.tasks})
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col text-xs text-zinc-400">
        Tasks
        <select name="kind" className={field}>
          <option value="slice">a slice</option>
          <option value="random">random with a seed</option>
        </select>
      </label>
      <div className="flex gap-2">
        <label className="flex flex-col text-xs text-zinc-400">
          From
          <input name="from" type="number" min={0} defaultValue={0} className={`${field} w-20`} />
        </label>
        <label className="flex flex-col text-xs text-zinc-400">
          Count
          <input name="count" type="number" min={1} defaultValue={20} className={`${field} w-20`} />
        </label>
        <label className="flex flex-col text-xs text-zinc-400">
          Seed
          <input name="seed" type="number" defaultValue={1} className={`${field} w-20`} />
        </label>
      </div>
      <label className="flex flex-col text-xs text-zinc-400">
        Feedback
        <select name="feedback" className={field}>
          <option value="none">none (participants see no score)</option>
          <option value="reward">reward after each turn and at submit</option>
          <option value="full">full (reward, breakdown, scored output)</option>
        </select>
      </label>
      <label className="flex flex-col text-xs text-zinc-400">
        Task order per participant
        <select name="assign" className={field}>
          <option value="fixed">fixed (as listed)</option>
          <option value="random">random (seeded per participant)</option>
          <option value="balanced">balanced (Latin square)</option>
        </select>
      </label>
      <label className="flex flex-col text-xs text-zinc-400">
        Time limit per task (minutes of active time; empty: none)
        <input name="timeLimitMin" type="number" min={0} step="any" className={field} />
      </label>
      <label className="flex items-center gap-2 text-xs text-zinc-400">
        <input name="showGold" type="checkbox" data-testid="show-gold" /> Show the gold solution after each submit
      </label>
      <label className="col-span-2 flex flex-col text-xs text-zinc-400">
        Instructions for participants
        <textarea name="instructions" rows={3} className={field} />
      </label>
      <label className="flex flex-col text-xs text-zinc-400">
        Turn limit
        <input name="turnLimit" type="number" min={1} max={100} defaultValue={10} className={field} />
      </label>
      <div className="col-span-2 flex items-center gap-2">
        <Button type="submit" variant="primary">
          Create
        </Button>
        {error && <span className="text-xs text-red-400">{error}</span>}
      </div>
    </form>
  );
}
