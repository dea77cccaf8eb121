import Link from "next/link";
import { ENV_NAMES } from "@/lib/datasets/types";
import { datasetsFor, searchTasks } from "@/lib/tasks/tasks";
import { playUrl } from "@/lib/tasks/task-ref";
import { OpenTaskBox } from "@/components/play/open-task-box";
import { DiceIcon } from "@/components/ui/icons";
import { pickerParamsSchema, playParamsSchema, playQuery } from "./search-params";

export const dynamic = "force-dynamic";
export const metadata = { title: "Playground · InterCode Studio" };

const PAGE_SIZE = 50;

/** The task picker: environment, dataset, search, filters, a random task, and open-by-link. */
export default async function PlayPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const raw = await searchParams;
  const p = pickerParamsSchema.parse(raw);
  const play = playParamsSchema.parse(raw);
  const env = p.env ?? "bash";
  const datasets = datasetsFor(env);
  const dataset = p.dataset && datasets.some((d) => d.name === p.dataset) ? p.dataset : undefined;
  const result = searchTasks({ env, dataset, q: p.q, hardness: p.hardness, db: p.db, fs: p.fs, offset: (p.page - 1) * PAGE_SIZE, limit: PAGE_SIZE });
  const carry = playQuery({ mode: play.mode, feedback: play.feedback, limit: play.limit });
  const pages = Math.max(1, Math.ceil(result.total / PAGE_SIZE));
  const qs = (over: Record<string, string | undefined>) => {
    const u = new URLSearchParams();
    const all = {
      env,
      dataset,
      q: p.q,
      hardness: p.hardness,
      db: p.db,
      fs: p.fs,
      mode: play.mode === "play" ? undefined : play.mode,
      feedback: play.feedback,
      limit: play.limit === 10 ? undefined : String(play.limit),
      ...over,
    };
    for (const [k, v] of Object.entries(all)) if (v) u.set(k, v);
    return `?${u.toString()}`;
  };

  return (
    <div className="mx-auto max-w-6xl p-4 text-sm">
      <div className="mb-3 flex flex-wrap items-center gap-2">
        <nav className="flex gap-1" aria-label="environment">
          {ENV_NAMES.map((e) => (
            <Link
              key={e}
              href={`/play${qs({ env: e, dataset: undefined, db: undefined, fs: undefined, hardness: undefined, page: undefined })}`}
              className={`rounded px-2 py-1 font-mono text-xs ${e === env ? "bg-emerald-700 text-white" : "border border-zinc-700 hover:bg-zinc-800"}`}
            >
              {e}
            </Link>
          ))}
        </nav>
        <a
          href={`/play/random${qs({})}`}
          className="inline-flex items-center gap-1 rounded border border-zinc-700 px-2 py-1 text-xs hover:bg-zinc-800"
          data-testid="random-task"
        >
          <DiceIcon /> Random task
        </a>
        <Link href="/play/studies" className="rounded border border-zinc-700 px-2 py-1 text-xs hover:bg-zinc-800">
          Studies
        </Link>
        <Link href={`/tasks/${env}`} className="rounded border border-zinc-700 px-2 py-1 text-xs hover:bg-zinc-800">
          All {env} datasets
        </Link>
        <div className="ml-auto">
          <OpenTaskBox />
        </div>
      </div>

      <form method="get" action="/play" className="mb-3 flex flex-wrap items-end gap-2 rounded border border-zinc-800 p-2" aria-label="filters">
        <input type="hidden" name="env" value={env} />
        <label className="flex flex-col text-xs text-zinc-400">
          Dataset
          <select name="dataset" defaultValue={dataset ?? ""} className="rounded border border-zinc-700 bg-zinc-900 px-1 py-0.5 text-zinc-100">
            <option value="">all {env} datasets</option>
            {datasets.map((d) => (
              <option key={d.name} value={d.name}>
                {d.name} ({d.tasks})
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-1 flex-col text-xs text-zinc-400">
          Search the queries
          <input
            name="q"
            defaultValue={p.q ?? ""}
            placeholder="e.g. count files"
            className="rounded border border-zinc-700 bg-zinc-900 px-1.5 py-0.5 text-zinc-100"
            data-testid="search"
          />
        </label>
        {env === "sql" && (
          <>
            <label className="flex flex-col text-xs text-zinc-400">
              Hardness
              <select name="hardness" defaultValue={p.hardness ?? ""} className="rounded border border-zinc-700 bg-zinc-900 px-1 py-0.5 text-zinc-100">
                <option value="">any</option>
                {result.facets.hardness.map((h) => (
                  <option key={h}>{h}</option>
                ))}
              </select>
            </label>
            <label className="flex flex-col text-xs text-zinc-400">
              Database
              <select name="db" defaultValue={p.db ?? ""} className="rounded border border-zinc-700 bg-zinc-900 px-1 py-0.5 text-zinc-100">
                <option value="">any</option>
                {result.facets.dbs.map((d) => (
                  <option key={d}>{d}</option>
                ))}
              </select>
            </label>
          </>
        )}
        {env === "bash" && (
          <label className="flex flex-col text-xs text-zinc-400">
            File system
            <select name="fs" defaultValue={p.fs ?? ""} className="rounded border border-zinc-700 bg-zinc-900 px-1 py-0.5 text-zinc-100">
              <option value="">any</option>
              {result.facets.fss.map((f) => (
                <option key={f}>{f}</option>
              ))}
            </select>
          </label>
        )}
        <label className="flex flex-col text-xs text-zinc-400">
          Mode
          <select name="mode" defaultValue={play.mode} className="rounded border border-zinc-700 bg-zinc-900 px-1 py-0.5 text-zinc-100">
            <option value="play">play</option>
            <option value="baseline">human baseline</option>
          </select>
        </label>
        <label className="flex flex-col text-xs text-zinc-400">
          Feedback
          <select name="feedback" defaultValue={play.feedback ?? "none"} className="rounded border border-zinc-700 bg-zinc-900 px-1 py-0.5 text-zinc-100">
            <option value="none">none until submit</option>
            <option value="reward">reward after each turn</option>
          </select>
        </label>
        <label className="flex flex-col text-xs text-zinc-400">
          Turns
          <input
            name="limit"
            type="number"
            min={1}
            max={100}
            defaultValue={play.limit}
            className="w-16 rounded border border-zinc-700 bg-zinc-900 px-1 py-0.5 text-zinc-100"
          />
        </label>
        <button type="submit" className="rounded bg-emerald-700 px-3 py-1 text-xs font-medium text-white hover:bg-emerald-600">
          Apply
        </button>
      </form>

      <p className="mb-1 text-xs text-zinc-400">
        {result.total} task(s){datasets.length === 0 ? ` — no ${env} dataset is installed (run \`npm run icstudio -- datasets fetch intercode\`)` : ""}
      </p>
      <table className="w-full border-collapse text-left" data-testid="task-list">
        <thead className="text-xs text-zinc-400">
          <tr>
            <th className="py-1 pr-2">Task</th>
            <th className="pr-2">Query</th>
            {env === "sql" && <th>DB · hardness</th>}
            {env === "bash" && <th>FS</th>}
          </tr>
        </thead>
        <tbody>
          {result.tasks.map((t) => (
            <tr key={`${t.dataset}:${t.id}`} className="border-t border-zinc-900 hover:bg-zinc-900">
              <td className="whitespace-nowrap py-1 pr-2 align-top font-mono text-xs">
                <Link className="text-emerald-400 hover:underline" href={playUrl(t.env, t.dataset, t.id) + carry}>
                  {t.dataset}:{t.id}
                </Link>
              </td>
              <td className="pr-2 align-top">
                {t.query.length > 220 ? `${t.query.slice(0, 220)}…` : t.query}
                {t.filesMissing && <span className="ml-1 text-xs text-amber-300">(task files missing)</span>}
              </td>
              {env === "sql" && (
                <td className="align-top text-xs text-zinc-400">
                  {t.db} · {t.hardness ?? "?"}
                </td>
              )}
              {env === "bash" && <td className="align-top text-xs text-zinc-400">{t.fs}</td>}
            </tr>
          ))}
        </tbody>
      </table>
      {pages > 1 && (
        <div className="mt-2 flex gap-2 text-xs">
          {p.page > 1 && (
            <Link href={`/play${qs({ page: String(p.page - 1) })}`} className="hover:underline">
              ← previous
            </Link>
          )}
          <span className="text-zinc-400">
            page {p.page} / {pages}
          </span>
          {p.page < pages && (
            <Link href={`/play${qs({ page: String(p.page + 1) })}`} className="hover:underline">
              next →
            </Link>
          )}
        </div>
      )}
    </div>
  );
}
