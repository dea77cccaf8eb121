"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { skipReason, turnsTaken } from "@/lib/episodes/rules";
import type { Feedback, LiveEventOf, PlayMode } from "@/lib/live/events";
import type { PublicTask } from "@/lib/tasks/public-task";
import { EpisodeFrame } from "./episode-workspace";
import { SubmitControl } from "./submit-control";
import type { TerminalApi } from "@/components/terminal/use-terminal";
import { Button } from "@/components/ui/button";
import { formatTextTable } from "@/lib/sql/text-table";
import { ReasonDialog } from "@/components/ui/reason-dialog";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { TaskPanel } from "@/components/play/task-panel";
import { EpisodeStatus } from "@/components/play/episode-status";
import { ResultPanel } from "@/components/play/result-panel";
import { ANNOTATOR_KEY, AnnotatorForm } from "@/components/play/annotator-form";
import { Clock } from "@/components/play/clock";
import { useStudyClock } from "@/components/play/use-study-clock";
import { EpisodeRecorder } from "@/components/play/recorder";
import { useEpisode, type EpisodeOpenParams } from "./use-episode";
import { formatDuration } from "@/lib/format-date";
import type { RecordingChunk } from "@/lib/recording/events";

/** What a person's episode is opened with (the page chooses it). */
export interface PersonActor {
  mode: PlayMode;
  feedback: Feedback;
  turnLimit: number;
  studyId?: string;
  /** Where "Next task" goes (the next task of the dataset or of the study). */
  nextHref?: string;
  /** Study progress, e.g. { position: 7, total: 40 }. */
  progress?: { position: number; total: number; studyName: string };
  /** The agent view of this task ("Let a model play"); absent in a study. */
  agentHref?: string;
  /** A participant's annotator name, given by the Studio (not asked, not remembered in the browser). */
  annotator?: string;
  /** In a study: the active-time clock's idle threshold (IC_STUDY_IDLE_MS). */
  studyIdleMs?: number;
}

/**
 * A person's episode (LiveEpisodeView's person actor): the run, submit, restart, abandon or skip
 * controls, the study clock, and after submit the reward beside the gold solution.
 */
export function PersonEpisode(props: PersonActor & { task: PublicTask }) {
  const { task, mode } = props;
  const [annotator, setAnnotator] = useState<string | null>(null);
  const [annotatorLoaded, setAnnotatorLoaded] = useState(false);
  const termRef = useRef<TerminalApi | null>(null);
  const streamed = useRef("");
  const [submitArg, setSubmitArg] = useState("");
  const skipping = useRef(false);
  const [asking, setAsking] = useState<"skip" | "abandon" | "submit" | null>(null);

  useEffect(() => {
    setAnnotator(props.annotator ?? window.localStorage.getItem(ANNOTATOR_KEY));
    setAnnotatorLoaded(true);
  }, [props.annotator]);

  const needsAnnotator = mode === "baseline" && !annotator;
  const params: EpisodeOpenParams | null = useMemo(() => {
    if (!annotatorLoaded || needsAnnotator) return null;
    return {
      env: task.env,
      taskRef: task.ref,
      mode,
      feedback: props.feedback,
      turnLimit: props.turnLimit,
      annotator: annotator ?? undefined,
      studyId: props.studyId,
    };
  }, [annotatorLoaded, needsAnnotator, task.env, task.ref, mode, props.feedback, props.turnLimit, annotator, props.studyId]);

  // The episode may open before the console exists (xterm loads lazily): keep the last
  // "opened" and draw it once both are there.
  const pendingOpened = useRef<LiveEventOf<"opened"> | null>(null);
  // The episode's recording (keys, console output, editor changes), sent in batches over the socket.
  const recordRef = useRef<(chunk: RecordingChunk) => boolean>(() => false);
  const recorder = useMemo(
    () =>
      new EpisodeRecorder(
        (c) => recordRef.current(c),
        () => termRef.current?.size() ?? null,
      ),
    [],
  );
  const recordedEpisode = useRef<string | null>(null);
  /** Set while the console redraws an episode's earlier turns (not new events). */
  const redrawing = useRef(false);
  useEffect(() => {
    recorder.start();
    const onHide = () => recorder.flush();
    window.addEventListener("pagehide", onHide);
    return () => {
      window.removeEventListener("pagehide", onHide);
      recorder.stop();
    };
  }, [recorder]);
  const drawOpened = useCallback(() => {
    const t = termRef.current;
    const m = pendingOpened.current;
    if (!t || !m) return;
    pendingOpened.current = null;
    redrawing.current = true;
    t.clear();
    for (const turn of m.turns) {
      t.echoAction(turn.action);
      t.write(turn.observation);
      t.setBusy(true);
      t.setBusy(false);
    }
    if (m.episode.replayed) t.notice(`episode restored: ${m.turns.length} action(s) replayed in a fresh sandbox`, "cyan");
    redrawing.current = false;
  }, []);

  const ep = useEpisode(params, {
    onOpened: (m) => {
      if (recordedEpisode.current !== m.episode.id) {
        recorder.reset(m.turns.length);
        recordedEpisode.current = m.episode.id;
      }
      recorder.enabled = m.episode.stored !== false;
      pendingOpened.current = m;
      drawOpened();
    },
    onTurnStart: (_i, action, source) => {
      streamed.current = "";
      termRef.current?.setBusy(true);
      if (source !== "console") termRef.current?.echoAction(action);
    },
    onOutput: (chunk) => {
      streamed.current += chunk;
      // SQL's result arrives whole at the turn's end, drawn as a table there.
      if (task.env !== "sql") termRef.current?.write(chunk);
    },
    onTurnEnd: (m) => {
      const t = termRef.current;
      if (!t) return;
      if (m.table) t.write(`${formatTextTable(m.table)}\n`);
      else if (task.env === "sql") t.write(m.observation);
      // The observation may hold more than what streamed (a timeout or truncation note).
      else if (m.observation.startsWith(streamed.current)) t.write(m.observation.slice(streamed.current.length));
      else if (!streamed.current) t.write(m.observation);
      if (typeof m.reward === "number") t.notice(`reward if submitted now: ${m.reward.toFixed(2)}`, "cyan");
      t.setBusy(false);
      // The turn is stored (and so is the episode): what follows is the next turn's.
      recorder.enabled = true;
      recorder.setTurn(m.index + 1);
    },
    onNotice: (text, kind) => termRef.current?.notice(text, kind === "error" ? "red" : kind === "limit" ? "yellow" : "gray"),
  });

  recordRef.current = ep.record;
  const live = ep.episode?.status === "running" && !ep.fatal;
  // An ended episode is stored: send what is left of its recording.
  useEffect(() => {
    if (ep.episode && ep.episode.status !== "running" && ep.episode.stored !== false) {
      recorder.enabled = true;
      recorder.flush();
    }
  }, [ep.episode, recorder]);
  useEffect(() => {
    if (skipping.current && ep.episode?.status === "abandoned" && props.nextHref) window.location.assign(props.nextHref);
  }, [ep.episode?.status, props.nextHref]);
  // A study task's active time: runs only while this page is open and the person active.
  const clock = useStudyClock({
    studyId: props.studyId ?? "",
    taskId: task.id,
    annotator: annotator ?? undefined,
    idleMs: props.studyIdleMs ?? 60_000,
    enabled: Boolean(props.studyId && annotator && live),
  });
  useEffect(() => {
    // The time limit is up: the task is skipped with that reason, and the study goes on.
    if (!clock.timeUp || !live || skipping.current) return;
    skipping.current = true;
    ep.abandon(skipReason("time limit reached"));
  }, [clock.timeUp, live, ep]);
  const turnCount = turnsTaken(ep.turns);

  const runAction = useCallback(
    (text: string, source: "console" | "editor") => {
      if (!live) {
        termRef.current?.notice("the episode has ended: restart or open the next task", "yellow");
        return;
      }
      if (ep.running) {
        termRef.current?.notice("an action is still running (Ctrl+C stops it)", "yellow");
        return;
      }
      ep.act(text, source);
    },
    [ep, live],
  );

  const onTerminalReady = useCallback(
    (api: TerminalApi | null) => {
      termRef.current = api;
      drawOpened();
    },
    [drawOpened],
  );

  const doSubmit = useCallback(() => {
    if (!live || ep.running) return;
    ep.submit(submitArg.trim() || undefined);
  }, [ep, live, submitArg]);
  // A CTF flag is one try: the submit ends the episode, right or wrong, so it is confirmed first.
  const askSubmit = useCallback(() => {
    if (!live || ep.running) return;
    if (task.env === "ctf") setAsking("submit");
    else doSubmit();
  }, [live, ep.running, task.env, doSubmit]);

  if (needsAnnotator && annotatorLoaded) {
    return <AnnotatorForm onSave={setAnnotator} />;
  }

  return (
    <EpisodeFrame
      env={task.env}
      taskRef={task.ref}
      controls={
        <>
          <EpisodeStatus episode={ep.episode} />
          {props.progress && (
            <span className="text-xs text-zinc-300" data-testid="study-progress">
              {props.progress.studyName}: {props.progress.position} / {props.progress.total}
            </span>
          )}
          <span data-testid="turns" className={`font-mono text-xs ${ep.limitReached ? "text-amber-400" : "text-zinc-300"}`}>
            turns {turnCount} / {props.turnLimit}
          </span>
          {mode === "baseline" && <Clock startedAt={ep.episode?.firstActionAt ?? null} endedAt={ep.episode?.endedAt ?? null} stopped={!live} />}
          {mode === "baseline" && annotator && <span className="text-xs text-zinc-400">annotator: {annotator}</span>}
          {props.studyId && (
            <span
              className={`font-mono text-xs ${clock.idle ? "text-amber-300" : "text-zinc-300"}`}
              data-testid="study-clock"
              data-active-ms={clock.activeMs}
              data-idle={clock.idle ? "1" : "0"}
              aria-live="polite"
            >
              active {formatDuration(clock.activeMs)}
              {clock.remainingMs !== null && <> · {formatDuration(clock.remainingMs)} left</>}
              {clock.idle && live && <> · paused (idle)</>}
            </span>
          )}
          {props.feedback === "reward" && ep.lastReward !== null && !ep.submitted && (
            <span className="text-xs text-cyan-300" data-testid="feedback-reward">
              reward now {ep.lastReward.toFixed(2)}
            </span>
          )}
          {ep.running && (
            <span className="text-xs text-sky-300" data-testid="busy">
              action running…
            </span>
          )}
          <span className="ml-auto flex items-center gap-2">
            {props.agentHref && (
              <a href={props.agentHref} className="text-xs text-emerald-400 underline-offset-2 hover:underline" data-testid="agent-link">
                Let a model play
              </a>
            )}
            <span
              className={`flex items-center gap-1 text-[11px] ${ep.connection === "open" ? "text-zinc-400" : "text-amber-300"}`}
              title={`connection to the server: ${ep.connection}`}
            >
              <span aria-hidden className={`inline-block h-1.5 w-1.5 rounded-full ${ep.connection === "open" ? "bg-emerald-500" : "bg-amber-400"}`} />
              <span className="sr-only">connection </span>
              <span data-testid="connection">{ep.connection}</span>
            </span>
            {/* Not in a study: a participant's access stops at their own tasks (the replay shows the gold). */}
            {!props.studyId && ep.episode && ep.episode.stored !== false && !live && (
              <a
                href={`/episodes/${encodeURIComponent(ep.episode.id)}`}
                className="text-xs text-emerald-400 underline-offset-2 hover:underline"
                data-testid="replay-link"
              >
                Replay this episode
              </a>
            )}
            <SubmitControl task={task} arg={submitArg} onArgChange={setSubmitArg} disabled={!live || ep.running} onSubmit={askSubmit} testId="submit" />
            {/* In a study, Skip (with its reason) is the way out of a task; a restart would start a second
              episode on it and a new clock, and the study would count the first one as skipped. */}
            {!props.studyId && (
              <>
                <Button onClick={() => ep.restart()} disabled={ep.running || !ep.episode}>
                  Restart
                </Button>
                <Button data-testid="abandon" onClick={() => setAsking("abandon")} disabled={!live}>
                  Abandon
                </Button>
              </>
            )}
            {props.studyId && (
              <Button data-testid="skip" onClick={() => setAsking("skip")} disabled={!live}>
                Skip
              </Button>
            )}
            {/* In a study, the next task is the first unfinished one: while this one runs that is this task again. */}
            {props.nextHref && (!props.studyId || (ep.episode !== null && !live)) && (
              <a href={props.nextHref} className="rounded border border-zinc-700 px-2 py-0.5 text-xs hover:bg-zinc-800" data-testid="next">
                Next task →
              </a>
            )}
          </span>
        </>
      }
      workspace={{
        env: task.env,
        termRef,
        side: <TaskPanel task={task} />,
        editor: {
          onRun: (text) => runAction(text, "editor"),
          onChange: (changes) => recorder.push("e", JSON.stringify(changes)),
          disabled: !live,
        },
        aboveConsole: ep.submitted && <ResultPanel env={task.env} result={ep.submitted} />,
        console: {
          onReady: onTerminalReady,
          onLine: (text) => runAction(text, "console"),
          onInterrupt: () => ep.interrupt(),
          onRecord: (kind, data) => {
            if (!redrawing.current) recorder.push(kind, data);
          },
        },
      }}
      after={
        <>
          {ep.episode && ep.episode.status !== "running" && !ep.submitted && (
            <div className="border-t border-zinc-800 px-3 py-1 text-xs text-amber-300">Episode {ep.episode.status}.</div>
          )}
          <ConfirmDialog
            open={asking === "submit"}
            testId="submit-dialog"
            title="Submit this flag and end the episode?"
            confirmLabel="Submit and end"
            onCancel={() => setAsking(null)}
            onConfirm={() => {
              setAsking(null);
              doSubmit();
            }}
          >
            <p>
              You get one try: a wrong flag scores 0 and the episode ends. Flag:{" "}
              <span className="font-mono text-zinc-100" data-testid="submit-dialog-flag">
                {submitArg.trim() || "(empty)"}
              </span>
            </p>
          </ConfirmDialog>
          <ReasonDialog
            open={asking === "abandon"}
            testId="abandon-dialog"
            title="Abandon this episode?"
            label="Why (optional, stored with the episode)"
            confirmLabel="Abandon"
            onCancel={() => setAsking(null)}
            onConfirm={(reason) => {
              setAsking(null);
              ep.abandon(reason || undefined);
            }}
          />
          <ReasonDialog
            open={asking === "skip"}
            testId="skip-dialog"
            title="Skip this task?"
            label="Why skip it? (stored with the study's results)"
            confirmLabel="Skip"
            onCancel={() => setAsking(null)}
            onConfirm={(reason) => {
              setAsking(null);
              skipping.current = true;
              ep.abandon(skipReason(reason));
            }}
          />
        </>
      }
    />
  );
}
