import "server-only";
import { EventEmitter } from "node:events";
import { dbRecorder } from "@/lib/episodes/db-recorder";
import { dbRunStore } from "./run-store";
import { trackAgent } from "@/lib/live/model-actor";
import { runEval } from "./run-eval";
import { getRunById, getRunByName, isOwnerAlive } from "@/lib/db/runs";
import type { EnvironmentOptions } from "@/lib/env/types";
import { BadInputError, ConflictError, NotFoundError } from "@/lib/errors";
import { assertRunUnsealed } from "@/lib/studies/baseline-seal";
import { storedRunConfigSchema, type LaunchRunOptions } from "./launch-options";
import { prepareRun, type PreparedRun } from "./prepare-run";

/**
 * Batch runs launched from the runs page, run by the same engine as `icstudio eval` (runEval) in
 * the server process: launch, stop (finished episodes kept, running ones interrupted), resume
 * (only what is left). Each running episode is registered as a live agent, so it can be watched
 * (and paused or taken over) at /play/<env>/<task>?agent=<episode id>.
 */

interface ActiveRun {
  id: string;
  concurrency: number;
  abort: AbortController;
  done: Promise<void>;
}

type State = { active: Map<string, ActiveRun>; changes: EventEmitter };
const state: State = ((globalThis as Record<string, unknown>).__icStudioRuns ??= {
  active: new Map(),
  changes: new EventEmitter().setMaxListeners(0),
}) as State;

/** What the manager needs from the server. */
export interface RunContext {
  maxSandboxes: number;
  envOptions?: EnvironmentOptions;
}

/** Calls `listener` whenever a run of this server changes (an episode starts, a turn lands, it ends). */
export function onRunChange(runId: string, listener: () => void): () => void {
  state.changes.on(runId, listener);
  return () => state.changes.off(runId, listener);
}

/** Whether the run is running in this server. */
export function isRunActiveHere(runId: string): boolean {
  return state.active.has(runId);
}

function changed(runId: string): void {
  state.changes.emit(runId);
}

function stamp(d = new Date()): string {
  return `.${d.toISOString().slice(0, 19).replace(/[-:]/g, "").replace("T", "-")}`;
}

/** Sandboxes the runs of this server may take at once: the cap less what running runs hold. */
function checkCapacity(concurrency: number, ctx: RunContext, field: string): void {
  const held = [...state.active.values()].reduce((s, r) => s + r.concurrency, 0);
  if (held + concurrency > ctx.maxSandboxes) {
    throw new BadInputError(
      `${concurrency} episodes at once would pass the sandbox cap of ${ctx.maxSandboxes} (IC_MAX_SANDBOXES): runs in progress here hold ${held}`,
      field,
    );
  }
}

/**
 * Starts a new run. Everything is checked first (prepareRun, and the sandboxes runs in progress
 * hold); resolves with the run's id once it is stored and its first episodes are starting.
 * @throws BadInputError naming the field; ConflictError when the name is taken.
 */
export async function launchRun(input: LaunchRunOptions, ctx: RunContext): Promise<{ id: string; name: string }> {
  const prepared = prepareRun(input, { maxSandboxes: ctx.maxSandboxes, launchedFrom: "server", nameSuffix: stamp(), field: (n) => `body ${n}` });
  checkCapacity(input.concurrency, ctx, "body concurrency");
  await assertRunUnsealed(
    input.env,
    input.dataset,
    prepared.tasks.map((t) => t.id),
  );
  if (await getRunByName({ name: prepared.runName })) {
    throw new ConflictError(`a run named ${JSON.stringify(prepared.runName)} exists; resume it from its page or pick another name`);
  }
  return start(prepared, input.concurrency, ctx);
}

/**
 * Resumes a stopped, failed or crashed run with its stored configuration: tasks that have a
 * finished episode are skipped, the rest run (episodes left running are marked interrupted).
 * @throws NotFoundError; ConflictError when some live process is running it.
 */
export async function resumeRun(id: string, ctx: RunContext): Promise<{ id: string; name: string }> {
  const run = await getRunById({ id });
  if (!run) throw new NotFoundError(`run ${id}`);
  if (state.active.has(id)) throw new ConflictError(`run ${run.name} is already running here`);
  if (run.status === "running" && isOwnerAlive(run.owner))
    throw new ConflictError(`run ${run.name} is running in another process (${run.owner}); stop it there first`);
  const parsed = storedRunConfigSchema.safeParse(JSON.parse(run.config));
  if (!parsed.success) throw new BadInputError(`the stored configuration cannot be read: ${parsed.error.issues[0]!.message}`, `run ${run.name} config`);
  const c = parsed.data;
  if (!c.taskIds?.length)
    throw new BadInputError("this run does not record its task list (stored before the runs page); resume it with icstudio eval", `run ${run.name}`);
  const concurrency = Math.min(c.concurrency ?? 4, ctx.maxSandboxes);
  const prepared = prepareRun(
    {
      env: c.env,
      dataset: c.dataset,
      selection: { kind: "list", tasks: c.taskIds },
      model: c.model,
      policy: c.policy,
      turns: c.turns,
      concurrency,
      handicap: c.handicap,
      refineTurns: c.refineTurns,
      profile: c.profile ?? "studio",
      name: run.name,
    },
    { maxSandboxes: ctx.maxSandboxes, launchedFrom: c.launchedFrom ?? "server", field: (n) => `run ${n}` },
  );
  checkCapacity(concurrency, ctx, "run concurrency");
  await assertRunUnsealed(c.env, c.dataset, c.taskIds);
  // Keep what the run was launched with (the selection as asked, where) in its stored config.
  prepared.config = { ...c, concurrency };
  return start(prepared, concurrency, ctx);
}

/**
 * Stops a run of this server: running episodes end interrupted, finished ones stay; resolves when
 * the run is stored as cancelled.
 * @throws ConflictError when it is not running here.
 */
export async function stopRun(id: string): Promise<void> {
  const r = state.active.get(id);
  if (!r) throw new ConflictError(`run ${id} is not running in this server`);
  r.abort.abort();
  await r.done;
}

/** Stops every run of this server (the server is shutting down). */
export async function stopAllRuns(): Promise<void> {
  await Promise.all([...state.active.keys()].map((id) => stopRun(id).catch(() => {})));
}

function start(p: PreparedRun, concurrency: number, ctx: RunContext): Promise<{ id: string; name: string }> {
  const abort = new AbortController();
  let runId = "";
  return new Promise((resolve, reject) => {
    const done = runEval({
      runName: p.runName,
      config: p.config,
      tasks: p.tasks,
      model: p.model,
      recorder: dbRecorder(),
      store: dbRunStore(),
      concurrency,
      signal: abort.signal,
      envOptions: ctx.envOptions,
      onStart: (id) => {
        runId = id;
        state.active.set(id, {
          id,
          concurrency,
          abort,
          done: done.then(
            () => {},
            () => {},
          ),
        });
        changed(id);
        resolve({ id, name: p.runName });
      },
      watch: (task, controller) => {
        const t = trackAgent(task, controller, { kind: "run", runId });
        return {
          onEvent: (e) => {
            t.onEvent(e);
            if (e.type === "episode-start" || e.type === "turn-end" || e.type === "episode-end") changed(runId);
          },
          end: () => {
            t.end();
            changed(runId);
          },
        };
      },
    });
    done
      .then(
        () => {},
        (err: unknown) => {
          if (!runId) reject(err);
          else console.error(`run ${p.runName}: ${err instanceof Error ? err.message : String(err)}`);
        },
      )
      .finally(() => {
        if (!runId) return;
        state.active.delete(runId);
        changed(runId);
      });
  });
}
