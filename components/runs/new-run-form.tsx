"use client";

import { useRouter } from "next/navigation";
import { useMemo, useState } from "react";
import { Button } from "@/components/ui/button";
import type { LaunchRunInput } from "@/lib/runs/launch-options";

type Option = { id: string; available: boolean; reason: string | null };
const ENVS = ["bash", "sql", "python", "ctf"] as const;
const field = "rounded border border-zinc-700 bg-zinc-900 px-1 py-0.5 text-xs text-zinc-100";

/**
 * Launch a batch run: the options of `icstudio eval`. The server checks everything before it
 * starts anything; a refusal is shown with the field it names.
 */
export function NewRunForm({
  datasets,
  models,
  policies,
  maxSandboxes,
}: {
  datasets: { name: string; env: string; tasks: number }[];
  models: Option[];
  policies: { name: string; summary: string }[];
  maxSandboxes: number;
}) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [env, setEnv] = useState<string>("sql");
  const inEnv = useMemo(() => datasets.filter((d) => d.env === env), [datasets, env]);
  const [dataset, setDataset] = useState(inEnv[0]?.name ?? "");
  const [kind, setKind] = useState<"slice" | "sample" | "list">("slice");
  const [offset, setOffset] = useState("0");
  const [limit, setLimit] = useState("");
  const [seed, setSeed] = useState("1");
  const [taskList, setTaskList] = useState("");
  const [model, setModel] = useState(models.find((m) => m.available)?.id ?? "");
  const [policy, setPolicy] = useState("try-again");
  const [turns, setTurns] = useState("10");
  const [concurrency, setConcurrency] = useState("4");
  const [handicap, setHandicap] = useState(false);
  const [profile, setProfile] = useState<"studio" | "intercode">("studio");
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const num = (s: string) => (s.trim() === "" ? undefined : Number(s));
  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    const selection: LaunchRunInput["selection"] =
      kind === "list"
        ? { kind, tasks: taskList.split(/[\s,]+/).filter(Boolean) }
        : kind === "sample"
          ? { kind, limit: num(limit) as number, seed: num(seed) ?? 1 }
          : { kind, offset: num(offset) ?? 0, limit: num(limit) };
    const body: LaunchRunInput = {
      env: env as LaunchRunInput["env"],
      dataset,
      selection,
      model,
      policy: policy as LaunchRunInput["policy"],
      turns: num(turns) ?? 10,
      concurrency: num(concurrency) ?? 4,
      handicap,
      profile,
      name: name.trim() || undefined,
    };
    try {
      const res = await fetch("/api/runs", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const json = (await res.json().catch(() => ({}))) as { id?: string; error?: { message?: string } };
      if (!res.ok || !json.id) throw new Error(json.error?.message ?? `HTTP ${res.status}`);
      router.push(`/runs/${json.id}`);
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };

  return (
    <section className="rounded border border-zinc-800 p-3">
      <Button data-testid="run-new" variant={open ? "default" : "primary"} onClick={() => setOpen((o) => !o)} aria-expanded={open}>
        {open ? "Close" : "New run"}
      </Button>
      {open && (
        <form onSubmit={submit} className="mt-3 grid max-w-3xl grid-cols-[9rem_1fr] items-center gap-x-3 gap-y-2 text-xs" aria-label="new run">
          <label htmlFor="run-env">environment</label>
          <select
            id="run-env"
            data-testid="run-env"
            className={field}
            value={env}
            onChange={(e) => {
              setEnv(e.target.value);
              setDataset(datasets.find((d) => d.env === e.target.value)?.name ?? "");
            }}
          >
            {ENVS.map((x) => (
              <option key={x} value={x}>
                {x}
              </option>
            ))}
          </select>
          <label htmlFor="run-dataset">dataset</label>
          <select id="run-dataset" data-testid="run-dataset" className={field} value={dataset} onChange={(e) => setDataset(e.target.value)}>
            {inEnv.map((d) => (
              <option key={d.name} value={d.name}>
                {d.name} ({d.tasks} tasks)
              </option>
            ))}
            {dataset && !inEnv.some((d) => d.name === dataset) && <option value={dataset}>{dataset}</option>}
          </select>
          <span>tasks</span>
          <div className="flex flex-wrap items-center gap-3">
            {(["slice", "sample", "list"] as const).map((k) => (
              <label key={k} className="flex items-center gap-1">
                <input type="radio" name="selection" value={k} checked={kind === k} onChange={() => setKind(k)} />
                {k === "slice" ? "a slice" : k === "sample" ? "a random sample" : "a task list"}
              </label>
            ))}
          </div>
          {kind !== "list" && (
            <>
              <label htmlFor="run-limit">{kind === "slice" ? "how many (empty: all)" : "sample size"}</label>
              <div className="flex items-center gap-2">
                <input
                  id="run-limit"
                  data-testid="run-limit"
                  type="number"
                  className={`${field} w-20`}
                  value={limit}
                  onChange={(e) => setLimit(e.target.value)}
                />
                {kind === "slice" ? (
                  <label className="flex items-center gap-1">
                    from task{" "}
                    <input aria-label="offset" type="number" min={0} className={`${field} w-16`} value={offset} onChange={(e) => setOffset(e.target.value)} />
                  </label>
                ) : (
                  <label className="flex items-center gap-1">
                    seed <input aria-label="seed" type="number" className={`${field} w-16`} value={seed} onChange={(e) => setSeed(e.target.value)} />
                  </label>
                )}
              </div>
            </>
          )}
          {kind === "list" && (
            <>
              <label htmlFor="run-tasks">task ids</label>
              <textarea
                id="run-tasks"
                data-testid="run-tasks"
                rows={2}
                className={field}
                placeholder="ids separated by commas or spaces"
                value={taskList}
                onChange={(e) => setTaskList(e.target.value)}
              />
            </>
          )}
          <label htmlFor="run-model">model</label>
          <select id="run-model" data-testid="run-model" className={field} value={model} onChange={(e) => setModel(e.target.value)}>
            {models.map((m) => (
              <option key={m.id} value={m.id} disabled={!m.available} title={m.reason ?? undefined}>
                {m.id}
                {m.available ? "" : " (unavailable)"}
              </option>
            ))}
          </select>
          <label htmlFor="run-policy">policy</label>
          <select id="run-policy" data-testid="run-policy" className={field} value={policy} onChange={(e) => setPolicy(e.target.value)}>
            {policies.map((p) => (
              <option key={p.name} value={p.name} title={p.summary}>
                {p.name}
              </option>
            ))}
          </select>
          <label htmlFor="run-turns">turn limit</label>
          <input
            id="run-turns"
            data-testid="run-turns"
            type="number"
            min={1}
            max={100}
            className={`${field} w-20`}
            value={turns}
            onChange={(e) => setTurns(e.target.value)}
          />
          <label htmlFor="run-concurrency">episodes at once</label>
          <input
            id="run-concurrency"
            data-testid="run-concurrency"
            type="number"
            min={1}
            className={`${field} w-20`}
            value={concurrency}
            onChange={(e) => setConcurrency(e.target.value)}
            title={`at most ${maxSandboxes} (the sandbox cap)`}
          />
          <label htmlFor="run-handicap">handicap</label>
          <label className="flex items-center gap-1">
            <input id="run-handicap" type="checkbox" checked={handicap} onChange={(e) => setHandicap(e.target.checked)} /> give the SQL schema up front
          </label>
          <label htmlFor="run-profile">profile</label>
          <select
            id="run-profile"
            data-testid="run-profile"
            className={field}
            value={profile}
            onChange={(e) => setProfile(e.target.value as "studio" | "intercode")}
          >
            <option value="studio">studio</option>
            <option value="intercode">intercode (InterCode&apos;s loop as it ran)</option>
          </select>
          <label htmlFor="run-name">name (optional)</label>
          <input id="run-name" className={field} value={name} onChange={(e) => setName(e.target.value)} placeholder="dataset.model.policy.turns.time" />
          <span />
          <div className="flex items-center gap-3">
            <Button type="submit" variant="primary" data-testid="run-start" disabled={busy || !model || !dataset}>
              {busy ? "Starting…" : "Start run"}
            </Button>
            {error && (
              <span role="alert" data-testid="run-error" className="text-red-400">
                {error}
              </span>
            )}
          </div>
        </form>
      )}
    </section>
  );
}
