import Link from "next/link";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { buildStudyResults } from "@/lib/studies/study-results";
import { outcomesVisible } from "@/lib/studies/seal-reveal";
import { formatDate, formatDuration } from "@/lib/format-date";
import { InvitesPanel } from "@/components/play/invites-panel";
import { AutoRefresh, StudyActions } from "@/components/play/study-actions";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: `Study ${decodeURIComponent(id).slice(0, 8)} results · InterCode Studio` };
}

const th = "py-1 pr-3 font-medium";
const r2 = (x: number | null) => (x === null ? "–" : x.toFixed(2));

/**
 * A study's results for its researcher: live progress per participant, results per participant
 * and per task, humans beside model runs on the same tasks, exports. While the study is open its
 * outcomes (rewards, solved) are sealed: shown only for a while after a logged reveal.
 */
export default async function StudyResultsPage({ params }: Props) {
  const { id } = await params;
  const r = await buildStudyResults(decodeURIComponent(id));
  if (!r) notFound();
  const { study, annotators, tasks, rows, models } = r;
  const sealed = study.closedAt === null;
  const { visible, reveals } = await outcomesVisible(study.id);
  const hide = (v: string) => (visible ? v : "sealed");
  const total = study.config.tasks.length;
  const exportHref = (f: string) => `/api/studies/${encodeURIComponent(study.id)}/results?format=${f}`;
  return (
    <div className="mx-auto max-w-6xl space-y-5 p-4 text-sm">
      <AutoRefresh ms={5000} />
      <p className="text-xs text-zinc-400">
        <Link href="/play/studies" className="hover:underline">
          Studies
        </Link>{" "}
        / {study.name}
      </p>
      <h1 className="text-lg font-semibold">{study.name}: results</h1>
      <p className="text-zinc-300">
        {study.config.env} · {study.config.dataset} · {total} tasks · order {study.config.assign} · feedback {study.config.feedback}
        {study.config.showGoldAfterSubmit ? " · gold after submit" : ""} · {study.config.turnLimit} turns
        {study.config.timeLimitMs ? ` · ${formatDuration(study.config.timeLimitMs)} per task` : ""} · created {formatDate(study.createdAt)}
        {study.closedAt ? ` · closed ${formatDate(study.closedAt)}` : " · open (sealed)"}
      </p>
      <StudyActions studyId={study.id} sealed={sealed} visible={visible} />
      {sealed && (
        <p className="text-xs text-amber-300" data-testid="seal-note">
          {visible
            ? `Outcomes revealed (logged ${reveals.length} time${reveals.length === 1 ? "" : "s"}, last ${formatDate(reveals[0]!.createdAt)}); they hide again 15 minutes after the last reveal.`
            : "The study is open: its tasks' rewards are sealed. Reveal them (the reveal is logged) or close the study."}
        </p>
      )}

      <section aria-labelledby="progress-h">
        <h2 id="progress-h" className="mb-1 font-semibold">
          Progress
        </h2>
        {annotators.length === 0 ? (
          <p className="text-zinc-400" data-testid="study-results-empty">
            Nobody has worked a task of this study yet.
          </p>
        ) : (
          <table className="w-full text-left" data-testid="study-progress-table">
            <thead className="text-xs text-zinc-400">
              <tr>
                <th className={th}>Annotator</th>
                <th className={th}>Now</th>
                <th className={th}>Current task</th>
                <th className={th}>Active on it</th>
                <th className={th}>Done</th>
                <th className={th}>Completion code</th>
              </tr>
            </thead>
            <tbody className="tabular-nums">
              {annotators.map((a) => (
                <tr key={a.annotator} className="border-t border-zinc-800" data-testid="progress-row" data-annotator={a.annotator}>
                  <td className="py-1 pr-3 font-mono">{a.annotator}</td>
                  <td className="pr-3">
                    {!a.currentTask ? (
                      <span className="text-zinc-300">finished</span>
                    ) : a.live ? (
                      <span className="text-emerald-400">working</span>
                    ) : (
                      <span className="text-zinc-400">away</span>
                    )}
                  </td>
                  <td className="pr-3 font-mono">{a.currentTask ?? "finished"}</td>
                  <td className="pr-3">{a.currentTask ? formatDuration(a.currentActiveMs) : "–"}</td>
                  <td className="pr-3">
                    {a.done} / {total}
                  </td>
                  <td className="pr-3 font-mono" data-testid="progress-code">
                    {a.completionCode ?? "–"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      {annotators.length > 0 && (
        <section aria-labelledby="per-annotator-h">
          <h2 id="per-annotator-h" className="mb-1 font-semibold">
            Per participant
          </h2>
          <table className="w-full text-left" data-testid="study-results">
            <thead className="text-xs text-zinc-400">
              <tr>
                <th className={th}>Annotator</th>
                <th className={th}>Tasks done</th>
                <th className={th}>Solved</th>
                <th className={th}>Mean reward</th>
                <th className={th}>Active time</th>
                <th className={th}>Wall time</th>
                <th className={th}>Active per attempted task</th>
              </tr>
            </thead>
            <tbody className="tabular-nums">
              {annotators.map((a) => (
                <tr key={a.annotator} className="border-t border-zinc-800" data-testid="study-result" data-annotator={a.annotator}>
                  <td className="py-1 pr-3 font-mono">{a.annotator}</td>
                  <td className="pr-3" data-testid="study-done">
                    {a.done} / {total}
                    {a.skipped ? <span className="text-zinc-400"> ({a.skipped} skipped)</span> : null}
                  </td>
                  <td className="pr-3" data-testid="study-solved">
                    {hide(`${a.solved} / ${a.submitted}`)}
                  </td>
                  <td className="pr-3" data-testid="study-mean-reward">
                    {hide(r2(a.meanReward))}
                  </td>
                  <td className="pr-3" data-testid="study-active">
                    {formatDuration(a.activeMs)}
                  </td>
                  <td className="pr-3" data-testid="study-wall">
                    {formatDuration(a.wallMs)}
                  </td>
                  <td className="pr-3" data-testid="study-per-task">
                    {formatDuration(a.activeMsPerAttempted)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}

      <section aria-labelledby="per-task-h">
        <h2 id="per-task-h" className="mb-1 font-semibold">
          Per task, humans beside models
        </h2>
        <table className="w-full text-left" data-testid="study-tasks">
          <thead className="text-xs text-zinc-400">
            <tr>
              <th className={th}>Task</th>
              <th className={th}>Submitted</th>
              <th className={th}>Skipped</th>
              <th className={th}>Humans solved</th>
              <th className={th}>Human mean reward</th>
              <th className={th}>Mean active</th>
              {models.map((m) => (
                <th key={m.runId} className={th}>
                  <Link className="text-sky-400 underline" href={`/runs/${m.runId}`}>
                    {m.model} ({m.runName})
                  </Link>
                </th>
              ))}
              <th className={th}>Skip reasons</th>
            </tr>
          </thead>
          <tbody className="tabular-nums">
            {tasks.map((t) => (
              <tr key={t.taskId} className="border-t border-zinc-800" data-testid="task-result" data-task={t.taskId}>
                <td className="py-1 pr-3 font-mono">{t.taskId}</td>
                <td className="pr-3">{t.submitted}</td>
                <td className="pr-3">{t.skipped}</td>
                <td className="pr-3">{hide(`${t.solved} / ${t.submitted}`)}</td>
                <td className="pr-3">{hide(r2(t.meanReward))}</td>
                <td className="pr-3">{formatDuration(t.meanActiveMs)}</td>
                {models.map((m) => (
                  <td key={m.runId} className="pr-3">
                    {hide(r2(m.rewards[t.taskId] ?? null))}
                  </td>
                ))}
                <td className="text-xs text-zinc-300" data-testid="task-skip-reasons">
                  {t.skipReasons.join("; ") || "–"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section aria-labelledby="rows-h">
        <h2 id="rows-h" className="mb-1 font-semibold">
          Every task of every participant
        </h2>
        <table className="w-full text-left text-xs" data-testid="study-rows">
          <thead className="text-zinc-400">
            <tr>
              <th className={th}>Annotator</th>
              <th className={th}>#</th>
              <th className={th}>Task</th>
              <th className={th}>State</th>
              <th className={th}>Reward</th>
              <th className={th}>Active</th>
              <th className={th}>Wall</th>
              <th className={th}>Skip reason</th>
            </tr>
          </thead>
          <tbody className="tabular-nums">
            {rows.map((x) => (
              <tr
                key={`${x.annotator}/${x.taskId}`}
                className="border-t border-zinc-900"
                data-testid="study-row"
                data-annotator={x.annotator}
                data-task={x.taskId}
                data-state={x.state}
              >
                <td className="py-0.5 pr-3 font-mono">{x.annotator}</td>
                <td className="pr-3">{x.position}</td>
                <td className="pr-3 font-mono">{x.taskId}</td>
                <td className="pr-3">{x.state}</td>
                <td className="pr-3">{hide(r2(x.reward))}</td>
                <td className="pr-3">{formatDuration(x.activeMs)}</td>
                <td className="pr-3">{formatDuration(x.wallMs)}</td>
                <td className="pr-3" data-testid="row-skip-reason">
                  {x.skipReason ?? ""}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <p className="flex flex-wrap gap-4 text-xs">
        <a className="text-sky-400 underline" href={exportHref("csv")} data-testid="export-csv">
          Results as CSV
        </a>
        <a className="text-sky-400 underline" href={exportHref("jsonl")} data-testid="export-jsonl">
          Results as JSONL
        </a>
        <Link className="text-emerald-400 underline" href={`/play/study/${encodeURIComponent(study.id)}`}>
          Work this study yourself
        </Link>
      </p>
      <p className="text-xs text-zinc-400">
        Active time runs only while a task&apos;s page is open and the person active; wall time from the first view of the task to its end. Time per attempted
        task divides the submitted tasks&apos; active time by their number (skipped tasks are not counted).
      </p>
      <InvitesPanel studyId={study.id} closed={study.closedAt !== null} />
    </div>
  );
}
