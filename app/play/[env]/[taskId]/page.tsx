import { notFound, redirect } from "next/navigation";
import { isAgentLive } from "@/lib/agent/live-agents";
import { getEpisodeById } from "@/lib/db/episodes";
import type { Metadata } from "next";
import { envNameSchema } from "@/lib/datasets/types";
import { loadDataset } from "@/lib/datasets/registry";
import { StudioError } from "@/lib/errors";
import { publicTask, resolveTask } from "@/lib/server/tasks";
import { getStudyProgress } from "@/lib/server/studies";
import { playUrl } from "@/lib/ws/task-ref";
import { PlayView } from "@/components/play/play-view";
import { AgentView } from "@/components/agent/agent-view";
import { playParamsSchema, playQuery } from "../../search-params";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ env: string; taskId: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { env, taskId } = await params;
  return { title: `${decodeURIComponent(taskId)} (${env}) · InterCode Studio` };
}

/** A task in the playground: /play/<env>/<dataset>:<id> (see lib/ws/task-ref.ts). */
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
  // ?agent=1: watch a model work the task (and take over from it) instead of playing it yourself;
  // ?agent=<id>: the model episode with that id (a live agent's or its stored episode's), reattached.
  const agent = typeof rawParams.agent === "string" ? rawParams.agent : undefined;
  if (agent === "1") return <AgentView task={await publicTask(task)} turnLimit={Number(rawParams.limit) || 10} />;
  if (agent) {
    if (!isAgentLive(agent)) {
      // Gone from this server (ended a while ago, or a restart): its stored episode, when it is one.
      if (await getEpisodeById({ id: agent }).catch(() => null)) redirect(`/episodes/${encodeURIComponent(agent)}`);
    }
    return <AgentView task={await publicTask(task)} turnLimit={Number(rawParams.limit) || 10} attachId={agent} />;
  }
  const play = playParamsSchema.parse(rawParams);

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
    <PlayView
      key={`${task.dataset}:${task.id}`}
      task={await publicTask(task)}
      mode={mode}
      feedback={feedback}
      turnLimit={turnLimit}
      studyId={play.study}
      nextHref={nextHref}
      progress={progress}
    />
  );
}
