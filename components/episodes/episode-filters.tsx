"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { Button } from "@/components/ui/button";
import { EPISODE_FLAGS } from "@/lib/trajectories/flags";
import { EPISODE_STATUSES } from "./status-chip";

type Facets = Record<"environment" | "dataset" | "playerKind" | "model" | "policy" | "annotator" | "status" | "hardness", string[]>;

const SELECTS: { key: string; facet: keyof Facets; label: string }[] = [
  { key: "env", facet: "environment", label: "env" },
  { key: "dataset", facet: "dataset", label: "dataset" },
  { key: "kind", facet: "playerKind", label: "player kind" },
  { key: "annotator", facet: "annotator", label: "annotator" },
  { key: "model", facet: "model", label: "model" },
  { key: "policy", facet: "policy", label: "policy" },
  { key: "status", facet: "status", label: "status" },
  { key: "hardness", facet: "hardness", label: "hardness" },
];

const INPUTS: { key: string; label: string; type: string; width: string }[] = [
  { key: "task", label: "task id", type: "text", width: "w-20" },
  { key: "tag", label: "tag", type: "text", width: "w-28" },
  { key: "flag", label: "import flag", type: "text", width: "w-28" },
  { key: "rmin", label: "reward ≥", type: "number", width: "w-16" },
  { key: "rmax", label: "reward ≤", type: "number", width: "w-16" },
  { key: "tmin", label: "turns ≥", type: "number", width: "w-14" },
  { key: "tmax", label: "turns ≤", type: "number", width: "w-14" },
  { key: "imin", label: "invalid ≥", type: "number", width: "w-14" },
  { key: "limit", label: "turn limit", type: "number", width: "w-14" },
  { key: "from", label: "from", type: "date", width: "w-32" },
  { key: "to", label: "to", type: "date", width: "w-32" },
];

/** The filter bar: every filter and the full-text search; applying pushes the view to the URL. */
export function EpisodeFilters({ query, facets, tags }: { query: Record<string, string>; facets: Facets; tags: string[] }) {
  const router = useRouter();
  const [v, setV] = useState<Record<string, string>>(query);
  const set = (k: string, val: string) => setV((o) => ({ ...o, [k]: val }));
  const apply = (next = v) => {
    const q = new URLSearchParams();
    for (const [k, val] of Object.entries(next)) if (val !== "" && k !== "page") q.set(k, val);
    router.push(`/episodes${q.size ? `?${q}` : ""}`);
  };
  return (
    <form
      className="flex flex-wrap items-end gap-2 text-xs"
      onSubmit={(e) => {
        e.preventDefault();
        apply();
      }}
      data-testid="filters"
    >
      <label className="flex flex-col text-zinc-400">
        search (query, actions, output)
        <input
          className="w-64 rounded border border-zinc-700 bg-zinc-900 px-1 py-0.5 text-zinc-100"
          value={v.q ?? ""}
          onChange={(e) => set("q", e.target.value)}
          data-testid="search"
        />
      </label>
      {SELECTS.map((s) =>
        s.key === "status" ? (
          <label key={s.key} className="flex flex-col text-zinc-400">
            {s.label}
            <select
              className="rounded border border-zinc-700 bg-zinc-900 px-1 py-0.5 text-zinc-100"
              value={v.status ?? ""}
              onChange={(e) => {
                const next = { ...v, status: e.target.value };
                setV(next);
                apply(next);
              }}
              data-testid="filter-status"
            >
              <option value="">any</option>
              {EPISODE_STATUSES.map((st) => (
                <option key={st} value={st}>
                  {st}
                </option>
              ))}
            </select>
          </label>
        ) : facets[s.facet].length ? (
          <label key={s.key} className="flex flex-col text-zinc-400">
            {s.label}
            <select
              className="max-w-40 rounded border border-zinc-700 bg-zinc-900 px-1 py-0.5 text-zinc-100"
              value={v[s.key] ?? ""}
              onChange={(e) => set(s.key, e.target.value)}
              data-testid={`filter-${s.key}`}
            >
              <option value="">any</option>
              {facets[s.facet].map((f) => (
                <option key={f} value={f}>
                  {f}
                </option>
              ))}
            </select>
          </label>
        ) : null,
      )}
      <label className="flex flex-col text-zinc-400">
        solved
        <select
          className="rounded border border-zinc-700 bg-zinc-900 px-1 py-0.5 text-zinc-100"
          value={v.solved ?? ""}
          onChange={(e) => set("solved", e.target.value)}
          data-testid="filter-solved"
        >
          <option value="">any</option>
          <option value="yes">yes</option>
          <option value="no">no</option>
        </select>
      </label>
      {INPUTS.map((i) => (
        <label key={i.key} className="flex flex-col text-zinc-400">
          {i.label}
          <input
            type={i.type}
            step={i.key.startsWith("r") ? "0.01" : undefined}
            list={i.key === "tag" ? "known-tags" : i.key === "flag" ? "known-flags" : undefined}
            className={`${i.width} rounded border border-zinc-700 bg-zinc-900 px-1 py-0.5 text-zinc-100`}
            value={v[i.key] ?? ""}
            onChange={(e) => set(i.key, e.target.value)}
            data-testid={`filter-${i.key}`}
          />
        </label>
      ))}
      <datalist id="known-tags">
        {tags.map((t) => (
          <option key={t} value={t} />
        ))}
      </datalist>
      <datalist id="known-flags">
        {Object.keys(EPISODE_FLAGS).map((f) => (
          <option key={f} value={f} />
        ))}
      </datalist>
      <Button type="submit" variant="primary" data-testid="apply-filters">
        apply
      </Button>
      <Button
        onClick={() => {
          setV({});
          apply({});
        }}
      >
        clear
      </Button>
    </form>
  );
}
