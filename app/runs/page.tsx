import Link from "next/link";
import type { Metadata } from "next";
import { AutoRefresh } from "@/components/runs/auto-refresh";
import { NewRunForm } from "@/components/runs/new-run-form";
import { listModels } from "@/lib/agent/models";
import { listPolicies } from "@/lib/agent/policies/registry";
import { listDatasets } from "@/lib/datasets/registry";
import { countRunEpisodesByRun } from "@/lib/db/run-episodes";
import { isOwnerAlive, listRuns } from "@/lib/db/runs";
import { storedRunConfigSchema } from "@/lib/runs/launch-options";
import { isRunActiveHere } from "@/lib/runs/run-manager";
import { serverRunContext } from "@/lib/runs/server-context";
import { pct } from "@/lib/runs/view-types";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Runs · InterCode Studio" };

/** /runs: launch a batch run, and every stored run (from here or `icstudio eval`), live ones updating. */
export default async function RunsPage() {
  const runs = await listRuns({ limit: 200 });
  const counts = await countRunEpisodesByRun({ runIds: runs.map((r) => r.id) });
  const rows = runs.map((r) => {
    let config = null;
    try {
      const parsed = storedRunConfigSchema.safeParse(JSON.parse(r.config));
      if (parsed.success) config = parsed.data;
    } catch {}
    const c = counts.get(r.id) ?? { done: 0, solved: 0, running: 0 };
    const live = isRunActiveHere(r.id) || (r.status === "running" && isOwnerAlive(r.owner));
    return { run: r, config, ...c, live, total: config?.taskIds?.length ?? r.total };
  });
  let models: { id: string; available: boolean; reason: string | null }[] = [];
  let modelsError: string | null = null;
  try {
    models = listModels().map((m) => ({ id: m.id, available: m.available, reason: m.reason ?? null }));
  } catch (err) {
    modelsError = (err as Error).message;
  }
  return (
    <div className="space-y-4 p-4">
      <AutoRefresh active={rows.some((r) => r.live)} />
      <div className="flex items-baseline gap-3">
        <h1 className="text-lg font-semibold">Runs</h1>
        <span className="text-xs text-zinc-400">
          A model under a policy over a task set; the same engine as <code>icstudio eval</code>, whose runs show here too.
        </span>
      </div>
      {modelsError && <p className="text-xs text-red-400">{modelsError}</p>}
      <NewRunForm
        datasets={listDatasets().map((d) => ({ name: d.name, env: d.env, tasks: d.tasks }))}
        models={models}
        policies={listPolicies().map((p) => ({ name: p.name, summary: p.summary }))}
        maxSandboxes={serverRunContext().maxSandboxes}
      />
      {rows.length === 0 ? (
        <p className="text-sm text-zinc-400">No runs yet.</p>
      ) : (
        <table className="w-full text-xs" data-testid="runs-list">
          <thead>
            <tr className="text-left text-zinc-400">
              <th className="pr-3">run</th>
              <th className="pr-3">status</th>
              <th className="pr-3">done</th>
              <th className="pr-3">solved</th>
              <th className="pr-3">success</th>
              <th className="pr-3">env · dataset</th>
              <th className="pr-3">model · policy · turns</th>
              <th>started</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ run, config, done, solved, live, total }) => (
              <tr key={run.id} className="border-t border-zinc-900" data-testid="runs-row" data-run={run.id}>
                <td className="pr-3">
                  <Link className="text-sky-400 underline" href={`/runs/${run.id}`}>
                    {run.name}
                  </Link>
                </td>
                <td className="pr-3">{live ? "running" : run.status === "running" ? "stopped unexpectedly" : run.status}</td>
                <td className="pr-3 font-mono">
                  {done} / {total}
                </td>
                <td className="pr-3">{solved}</td>
                <td className="pr-3">{done ? pct(solved / done) : "–"}</td>
                <td className="pr-3">{config ? `${config.env} · ${config.dataset}` : ""}</td>
                <td className="pr-3">{config ? `${config.model} · ${config.policy} · ${config.turns}` : ""}</td>
                <td>{run.createdAt.toISOString().slice(0, 16).replace("T", " ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
