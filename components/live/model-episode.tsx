"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { PublicTask } from "@/lib/tasks/public-task";
import { EpisodeFrame } from "./episode-workspace";
import type { TerminalApi } from "@/components/terminal/use-terminal";
import { Button } from "@/components/ui/button";
import { AlertIcon } from "@/components/ui/icons";
import { TaskPanel } from "@/components/play/task-panel";
import { useAgentRun } from "./use-agent-run";
import { SubmitControl } from "./submit-control";
import type { ControllerMode } from "@/lib/episodes/agent-event";

type ModelOption = { id: string; provider: string; model: string; available: boolean; reason: string | null };
type PolicyOption = { name: string; summary: string };

/**
 * The controls of a running model episode, in the order shown: when each is enabled (besides the
 * episode being live) follows from the controller's mode.
 */
const MODEL_CONTROLS: {
  op: "pause" | "step" | "resume" | "takeOver" | "handBack" | "stop";
  testId: string;
  label: string;
  enabled(mode: ControllerMode | null): boolean;
}[] = [
  { op: "pause", testId: "agent-pause", label: "Pause", enabled: (m) => m === "running" },
  { op: "step", testId: "agent-step", label: "Step", enabled: (m) => m !== "running" },
  { op: "resume", testId: "agent-resume", label: "Resume", enabled: (m) => m === "paused" },
  { op: "takeOver", testId: "agent-takeover", label: "Take over", enabled: (m) => m !== "human" },
  { op: "handBack", testId: "agent-handback", label: "Hand back", enabled: (m) => m === "human" },
  { op: "stop", testId: "agent-stop", label: "Stop", enabled: () => true },
];

/** What a model's episode is started or reattached with (the page chooses it). */
export interface ModelActor {
  turnLimit?: number;
  /** A running model episode to follow (the page's `?agent=<id>`). */
  attachId?: string;
}

/**
 * A model's episode (LiveEpisodeView's model actor): pick a model, a policy and a turn limit, run;
 * each action appears in the editor and its output in the console as it happens. Pause, step one
 * turn, resume, stop; take over (your actions from the editor or console go into the same episode,
 * and Submit is yours) and hand back.
 *
 * The page's URL names the running episode (`?agent=<id>`, set once it starts): a reload or another
 * tab at that URL reattaches to it (`attachId`), replaying what happened so far.
 */
export function ModelEpisode({ task, turnLimit = 10, attachId }: ModelActor & { task: PublicTask }) {
  const [models, setModels] = useState<ModelOption[]>([]);
  const [policies, setPolicies] = useState<PolicyOption[]>([]);
  const [model, setModel] = useState("");
  const [policy, setPolicy] = useState("try-again");
  const [turns, setTurns] = useState(turnLimit);
  const [handicap, setHandicap] = useState(false);
  const [submitArg, setSubmitArg] = useState("");
  const termRef = useRef<TerminalApi | null>(null);
  const [editorText, setEditorText] = useState({ key: 0, text: "" });
  /** A line the person typed in the console (already shown there, so not echoed again). */
  const typed = useRef<string | null>(null);

  useEffect(() => {
    void fetch("/api/agent/models")
      .then((r) => r.json())
      .then((j: { models: ModelOption[]; policies: PolicyOption[] }) => {
        setModels(j.models);
        setPolicies(j.policies);
        setModel((m) => m || j.models.find((x) => x.available)?.id || "");
      });
  }, []);

  const [termReady, setTermReady] = useState(false);
  const { state, start, attach, control } = useAgentRun({
    onAction: (text, actor) => {
      if (actor === "model") setEditorText((e) => ({ key: e.key + 1, text }));
      termRef.current?.setBusy(true);
      if (actor === "human" && typed.current === text) typed.current = null;
      else termRef.current?.echoAction(text);
    },
    onOutput: (chunk) => termRef.current?.write(chunk),
    onReplyDropped: () => termRef.current?.notice("the model's late reply was dropped: you have taken over", "gray"),
    onTurnEnd: (t) => {
      const term = termRef.current;
      if (!term) return;
      if (!t.action) term.notice(`no usable action: ${t.observation}`, "yellow");
      if (t.reward !== null) term.notice(`reward if submitted now: ${t.reward.toFixed(2)}`, "cyan");
      term.setBusy(false);
    },
  });

  const onTerminalReady = useCallback((api: TerminalApi | null) => {
    termRef.current = api;
    setTermReady(api !== null);
  }, []);

  // Reattach once the console can show the replayed output.
  const attached = useRef(false);
  useEffect(() => {
    if (!attachId || !termReady || attached.current) return;
    attached.current = true;
    attach(attachId);
  }, [attachId, termReady, attach]);

  // Show what the attached episode runs with.
  useEffect(() => {
    if (!state.info) return;
    setModel(state.info.model);
    setPolicy(state.info.policy);
    setTurns(state.info.maxTurns);
  }, [state.info]);

  const live = state.runId !== null && state.mode !== null && state.mode !== "stopped";
  const human = state.mode === "human";
  const act = (text: string, fromConsole = false) => {
    if (fromConsole) typed.current = text;
    if (human) void control({ op: "action", text, source: fromConsole ? "console" : "editor" });
    else termRef.current?.notice("take over first to run your own actions", "yellow");
  };
  const selected = models.find((m) => m.id === model);

  // Why a run ended without a score, in the page (the reason is in the event stream: a failed start,
  // a "failed" event, or the episode's errorReason, e.g. "ECONNREFUSED ... after 4 attempts").
  const runError = state.error ?? (state.outcome && state.outcome.status !== "submitted" && state.outcome.errorReason ? state.outcome.errorReason : null);
  return (
    <EpisodeFrame
      data-testid="agent-view"
      data-episode={state.episodeId ?? ""}
      data-agent={state.runId ?? ""}
      env={task.env}
      taskRef={task.ref}
      gap="gap-2"
      refClassName="font-mono text-xs text-zinc-400"
      controls={
        <>
          <label className="text-xs text-zinc-400">
            model{" "}
            <select
              data-testid="agent-model"
              value={model}
              onChange={(e) => setModel(e.target.value)}
              disabled={live}
              className="rounded border border-zinc-700 bg-zinc-900 px-1 text-xs text-zinc-100"
            >
              {models.map((m) => (
                <option key={m.id} value={m.id} disabled={!m.available} title={m.reason ?? `${m.provider}:${m.model}`}>
                  {m.id}
                  {m.available ? "" : " (unavailable)"}
                </option>
              ))}
            </select>
          </label>
          <label className="text-xs text-zinc-400">
            policy{" "}
            <select
              data-testid="agent-policy"
              value={policy}
              onChange={(e) => setPolicy(e.target.value)}
              disabled={live}
              className="rounded border border-zinc-700 bg-zinc-900 px-1 text-xs text-zinc-100"
            >
              {policies.map((p) => (
                <option key={p.name} value={p.name} title={p.summary}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
          <label className="text-xs text-zinc-400">
            turns{" "}
            <input
              data-testid="agent-turns"
              type="number"
              min={1}
              max={50}
              value={turns}
              onChange={(e) => setTurns(Number(e.target.value) || 1)}
              disabled={live}
              className="w-12 rounded border border-zinc-700 bg-zinc-900 px-1 text-xs text-zinc-100"
            />
          </label>
          {task.env === "sql" && (
            <label className="text-xs text-zinc-400" title="give the model the database schema up front">
              <input type="checkbox" checked={handicap} onChange={(e) => setHandicap(e.target.checked)} disabled={live} /> schema
            </label>
          )}
          <Button
            data-testid="agent-run"
            variant="primary"
            disabled={live || !selected?.available}
            title={selected?.reason ?? undefined}
            onClick={() => {
              termRef.current?.clear();
              void start({ env: task.env, taskRef: task.ref, model, policy, turnLimit: turns, handicap }).then((id) => {
                if (!id) return;
                // Name the run in the URL, so a reload or another tab reattaches to it.
                const url = new URL(window.location.href);
                url.searchParams.set("agent", id);
                window.history.replaceState(window.history.state, "", url);
              });
            }}
          >
            Run model
          </Button>
          <span className="ml-2 flex items-center gap-1">
            {MODEL_CONTROLS.map((c) => (
              <Button
                key={c.op}
                data-testid={c.testId}
                variant={c.op === "stop" ? "danger" : "default"}
                disabled={!live || !c.enabled(state.mode)}
                onClick={() => void control({ op: c.op })}
              >
                {c.label}
              </Button>
            ))}
          </span>
          <SubmitControl
            task={task}
            arg={submitArg}
            onArgChange={setSubmitArg}
            showArg={human}
            disabled={!human}
            onSubmit={() => void control({ op: "action", text: `submit ${submitArg}`.trim(), source: "button" })}
            testId="agent-submit"
          />
          <span data-testid="agent-status" className="ml-auto font-mono text-xs text-zinc-300">
            {state.error ? <span className="text-red-400">{state.error}</span> : state.outcome ? `${state.outcome.status}` : (state.mode ?? "idle")} · turns{" "}
            {state.turns.length}
            {state.outcome?.reward != null && <span data-testid="agent-reward"> · reward {state.outcome.reward.toFixed(2)}</span>}
          </span>
        </>
      }
      alert={
        runError && (
          <div role="alert" className="flex items-start gap-2 border-b border-red-800 bg-red-950/60 px-3 py-1.5 text-sm text-red-100" data-testid="run-error">
            <AlertIcon className="mt-0.5 text-red-300" />
            <span>
              <span className="font-semibold">The model run {state.outcome?.status === "interrupted" ? "was interrupted" : "failed"}:</span> {runError}
            </span>
          </div>
        )
      }
      workspace={{
        env: task.env,
        termRef,
        side: (
          <div className="flex min-h-0 flex-col overflow-auto" tabIndex={0} role="region" aria-label="task and the model's turns">
            <TaskPanel task={task} />
            {state.plan && (
              <section className="px-3 text-xs text-zinc-300" data-testid="agent-plan">
                <h3 className="mb-1 font-semibold uppercase tracking-wide text-zinc-400">Plan</h3>
                <ol className="list-decimal pl-5">
                  {state.plan.map((s, i) => (
                    <li key={i}>{s}</li>
                  ))}
                </ol>
              </section>
            )}
            <ol className="space-y-2 p-3 text-xs" data-testid="agent-turns-list">
              {state.turns.map((t) => (
                <li key={t.index} className="rounded border border-zinc-800 p-2" data-actor={t.actor}>
                  <div className="flex gap-2 text-zinc-400">
                    <span>#{t.index + 1}</span>
                    <span className={t.actor === "human" ? "text-amber-400" : "text-emerald-400"}>{t.actor}</span>
                    <span>{t.ok ? "ok" : "failed"}</span>
                    {t.reward !== null && <span className="text-cyan-300">reward {t.reward.toFixed(2)}</span>}
                    {t.latencyMs !== null && <span>{t.latencyMs} ms</span>}
                    {t.tokensIn !== null && (
                      <span>
                        {t.tokensIn}→{t.tokensOut} tok
                      </span>
                    )}
                  </div>
                  {t.thought && <p className="mt-1 whitespace-pre-wrap italic text-zinc-400">{t.thought}</p>}
                  <pre className="mt-1 whitespace-pre-wrap font-mono text-zinc-100">{t.action || "(no action)"}</pre>
                </li>
              ))}
            </ol>
            {state.replyDraft && live && <pre className="mx-3 whitespace-pre-wrap rounded bg-zinc-900 p-2 text-xs text-zinc-400">{state.replyDraft}</pre>}
          </div>
        ),
        editorKey: editorText.key,
        editor: { defaultValue: editorText.text, onRun: (text) => act(text), disabled: !human },
        console: { onReady: onTerminalReady, onLine: (line) => act(line, true), onInterrupt: () => void control({ op: "stop" }) },
      }}
    />
  );
}
