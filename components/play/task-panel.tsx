import type { PublicTask } from "@/lib/tasks/public-task";
import { SCORING_RULE } from "@/lib/reward/explain";

/** The task: its query, and what the environment lets a player know up front. */
export function TaskPanel({ task }: { task: PublicTask }) {
  return (
    <aside className="min-h-0 overflow-auto p-3 text-sm" aria-label="task" data-testid="task" tabIndex={0}>
      <h2 className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-400">Task</h2>
      <p className="whitespace-pre-wrap leading-relaxed text-zinc-100" data-testid="query">
        {task.query}
      </p>
      <p className="mt-3 rounded border border-sky-800 bg-sky-950/60 px-2 py-1.5 text-xs leading-snug text-sky-100" data-testid="scoring-rule">
        {SCORING_RULE[task.env]}
      </p>
      {task.env === "sql" && task.tables && (
        <section className="mt-4">
          <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-400">
            Database <span className="font-mono normal-case text-zinc-300">{task.db}</span>
            {task.hardness && <span className="ml-2 rounded bg-zinc-800 px-1 normal-case">{task.hardness}</span>}
          </h3>
          <ul className="space-y-1 font-mono text-xs" data-testid="schema">
            {Object.entries(task.tables).map(([table, cols]) => (
              <li key={table}>
                <span className="text-emerald-400">{table}</span>
                <span className="text-zinc-400">(</span>
                <span className="text-zinc-300">{cols.join(", ")}</span>
                <span className="text-zinc-400">)</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {task.env === "bash" && (
        <section className="mt-4">
          <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-zinc-400">
            Working directory <span className="font-mono normal-case text-zinc-300">({task.fs})</span>
          </h3>
          {task.fsSource && (
            <p className="mb-1 text-xs text-zinc-400" data-testid="fs-source">
              {task.fsSource === "intercode"
                ? "InterCode's own file system, built from its setup script."
                : task.dataset.startsWith("nl2bash")
                  ? "The Studio's file system for this task: InterCode's has not been built (icstudio datasets fetch intercode)."
                  : "The Studio's demo file system."}
            </p>
          )}
          {task.tree?.length ? (
            <pre className="max-h-[60vh] overflow-auto font-mono text-xs leading-5 text-zinc-300" data-testid="tree" tabIndex={0}>
              {task.tree
                .map((p) => "  ".repeat(p.replace(/\/$/, "").split("/").length - 1) + p.replace(/\/$/, "").split("/").pop() + (p.endsWith("/") ? "/" : ""))
                .join("\n")}
            </pre>
          ) : (
            <p className="text-xs text-zinc-400">Explore it with ls and find.</p>
          )}
        </section>
      )}
      {task.env === "python" && (
        <section className="mt-4 text-xs text-zinc-400">
          <p>
            Define <span className="font-mono text-emerald-400">{task.functionName ?? "the function"}</span>; hidden tests score it when you submit (
            <span className="font-mono">submit</span> or <span className="font-mono">submit {task.functionName ?? "<function>"}</span>).
          </p>
        </section>
      )}
      {task.env === "ctf" && (
        <section className="mt-4 text-xs text-zinc-400">
          {task.tags?.length ? <p>Tags: {task.tags.join(", ")}</p> : null}
          {task.filesMissing && (
            <p className="mt-1 text-amber-300" data-testid="files-missing">
              No task files: {task.filesMissing}.
            </p>
          )}
          <p className="mt-1">
            Submit the flag with <span className="font-mono">submit &lt;flag&gt;</span>.
          </p>
        </section>
      )}
    </aside>
  );
}
