import Link from "next/link";
import { notFound, redirect } from "next/navigation";
import { isAgentLive } from "@/lib/live/model-actor";
import { getEpisodeById } from "@/lib/db/episodes";
import type { Metadata } from "next";
import { envNameSchema } from "@/lib/datasets/types";
import { loadDataset } from "@/lib/datasets/registry";
import { StudioError } from "@/lib/errors";
import { publicTask, resolveTask } from "@/lib/tasks/tasks";
import { getStudyProgress } from "@/lib/studies/studies";
import { findSeal, type Seal } from "@/lib/studies/baseline-seal";
import { agentUrl, playUrl } from "@/lib/tasks/task-ref";
import { LockIcon } from "@/components/ui/icons";
import { LiveEpisodeView } from "@/components/live/live-episode-view";
import { playParamsSchema, playQuery } from "../../search-params";
import { headers } from "next/headers";
import { principalOf } from "@/lib/http/principal";
import { config } from "@/lib/config";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ env: string; taskId: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { env, taskId } = await params;
  return { title: `${decodeURIComponent(taskId)} (${env}) · InterCode Studio` };
}

/** A task in the playground: /play/<env>/<dataset>:<id> (see lib/tasks/task-ref.ts). */
export default async function TaskPage({ params, searchParams }: Props) {
  const { env: rawEnv, taskId } = await params;
  const env = envNameSchema.safeParse(rawEnv);
  if (!env.success) notFound();
  const ref = decodeURIComponent(taskId);
  let task;
  try {
    task = resolveTask(env.data, ref);
  } catch (err) {
    if (err instanceof StudioError && (err.code === "not_found" || err.code === "bad_input")) notFound();
    throw err;
  }
  const rawParams = await searchParams;
  const play = playParamsSchema.parse(rawParams);
  // ?agent=1: watch a model work the task (and take over from it) instead of playing it yourself;
  // ?agent=<id>: the model episode with that id (a live agent's or its stored episode's), reattached.
  const agent = typeof rawParams.agent === "string" ? rawParams.agent : undefined;
  // A baseline episode holds the seal: no play episode and no new model run may start on the task
  // (the server would refuse them); another annotator's baseline episode, or the holder's own, may.
  const resuming = typeof rawParams.episode === "string" ? rawParams.episode : undefined;
  const seal = await findSeal({ environment: task.env, dataset: task.dataset, taskId: task.id }, resuming);
  if (seal && (agent === "1" || (!agent && play.mode === "play" && !play.study))) {
    return <SealedTask env={task.env} refText={`${task.dataset}:${task.id}`} query={task.query} seal={seal} />;
  }
  const turnLimitParam = Number(rawParams.limit) || 10;
  if (agent === "1") return <LiveEpisodeView task={await publicTask(task)} actor={{ kind: "model", turnLimit: turnLimitParam }} />;
  if (agent) {
    if (!isAgentLive(agent)) {
      // Gone from this server (ended a while ago, or a restart): its stored episode, when it is one.
      if (await getEpisodeById({ id: agent }).catch(() => null)) redirect(`/episodes/${encodeURIComponent(agent)}`);
    }
    return <LiveEpisodeView task={await publicTask(task)} actor={{ kind: "model", turnLimit: turnLimitParam, attachId: agent }} />;
  }

  // A participant plays only their own tasks within their study (the server let only those through); their name is the Studio's.
  const who = await principalOf(await headers());
  const participant = who.role === "participant" ? who.scope : null;
  if (participant && play.study !== participant.studyId) notFound();

  let nextHref: string | undefined;
  let progress: { position: number; total: number; studyName: string } | undefined;
  let mode = play.mode;
  let feedback = play.feedback ?? "none";
  let turnLimit = play.limit;
  if (play.study) {
    const study = await getStudyProgress(play.study, play.i ?? 0);
    if (!study) notFound();
    mode = "baseline";
    feedback = study.feedback;
    turnLimit = study.turnLimit;
    progress = { position: (play.i ?? 0) + 1, total: study.total, studyName: study.name };
    nextHref = study.nextHref ?? `/play/study/${encodeURIComponent(play.study)}`;
  } else {
    const tasks = loadDataset(task.dataset);
    const next = tasks[tasks.findIndex((t) => t.id === task.id) + 1];
    if (next) nextHref = playUrl(next.env, next.dataset, next.id) + playQuery({ mode: play.mode, feedback: play.feedback, limit: play.limit });
  }

  return (
    <LiveEpisodeView
      key={`${task.dataset}:${task.id}`}
      task={await publicTask(task)}
      actor={{
        kind: "person",
        mode,
        feedback,
        turnLimit,
        studyId: play.study,
        nextHref,
        progress,
        annotator: participant?.label,
        studyIdleMs: play.study ? config().studyIdleMs : undefined,
        agentHref: play.study ? undefined : agentUrl(task.env, task.dataset, task.id),
      }}
    />
  );
}

/** The blocked state of a sealed task: who holds the seal, how it lifts, and no console. */
function SealedTask({ env, refText, query, seal }: { env: string; refText: string; query: string; seal: Seal }) {
  return (
    <div className="mx-auto mt-12 max-w-2xl rounded-lg border border-amber-700/60 bg-amber-950/30 p-6 text-sm" data-testid="sealed-task">
      <h1 className="flex items-center gap-2 text-lg font-semibold text-amber-200">
        <LockIcon /> This task is sealed
      </h1>
      <p className="mt-1 font-mono text-xs text-zinc-300">
        {env} · {refText}
      </p>
      <p className="mt-3 text-zinc-100">{query}</p>
      {seal.kind === "study" ? (
        <p className="mt-3 text-zinc-200" data-testid="sealed-by-study">
          This task belongs to the open study <span className="font-semibold">{seal.studyName}</span>. Until the study is closed, nobody can play the task
          outside it, run a model on it or see its gold solution, so the study stays blind.
        </p>
      ) : (
        <p className="mt-3 text-zinc-200">
          A human baseline episode is working this task:{" "}
          <Link href={`/episodes/${encodeURIComponent(seal.episodeId)}`} className="font-mono text-amber-300 underline" data-testid="sealed-by">
            {seal.episodeId}
          </Link>
          {seal.annotator ? (
            <>
              {" "}
              (annotator <span className="font-semibold">{seal.annotator}</span>)
            </>
          ) : null}
          . Until it is submitted or skipped, nobody can play the task, run a model on it or see its gold solution, so the baseline stays blind.
        </p>
      )}
      <p className="mt-3 flex gap-4">
        <Link href="/play" className="text-emerald-400 underline">
          Pick another task
        </Link>
        <Link href={`/tasks/${env}`} className="text-emerald-400 underline">
          All {env} tasks
        </Link>
      </p>
    </div>
  );
}
