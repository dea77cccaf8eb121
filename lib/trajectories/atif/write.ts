import type { ExportedEpisode } from "../inspect/write";
import { actionToolCall } from "../tool-actions";
import { ATIF_STUDIO_KEY } from "./read";

/**
 * A Studio episode as a Harbor trial (the inverse of ./read.ts): `agent/trajectory.json` in
 * ATIF-v1.6 (a user step with the question, then one agent step per turn: the raw reply as the
 * message, the thought as reasoning_content, the action as a tool call, the observation as its
 * result, tokens and cost as metrics), `verifier/reward.txt` when the episode was scored,
 * `result.json` (task, agent, reward, times, error) and `config.json` (the task it ran).
 */

const drop = <T extends Record<string, unknown>>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

export const ATIF_VERSION = "ATIF-v1.6";

export function episodeToAtifTrial(e: ExportedEpisode): {
  trajectory: Record<string, unknown>;
  reward: number | null;
  result: Record<string, unknown>;
  config: Record<string, unknown>;
} {
  const steps: Record<string, unknown>[] = [];
  const system = e.messages?.find((m) => m.role === "system");
  if (system) steps.push({ step_id: steps.length + 1, source: "system", message: system.content });
  steps.push({ step_id: steps.length + 1, timestamp: e.startedAt.toISOString(), source: "user", message: e.query });
  let tin = 0;
  let tout = 0;
  let cost = 0;
  let anyCost = false;
  for (const t of e.turns) {
    const call = actionToolCall(e.environment, t.action);
    const id = `call_${t.index}`;
    tin += t.tokensIn ?? 0;
    tout += t.tokensOut ?? 0;
    if (t.costUsd !== null) (cost += t.costUsd), (anyCost = true);
    const metrics = drop({ prompt_tokens: t.tokensIn, completion_tokens: t.tokensOut, cost_usd: t.costUsd });
    steps.push(
      drop({
        step_id: steps.length + 1,
        timestamp: t.startedAt?.toISOString(),
        source: "agent",
        model_name: e.model ?? undefined,
        message: t.rawReply ?? "",
        reasoning_content: t.thought,
        tool_calls: [{ tool_call_id: id, function_name: call.fn, arguments: call.args }],
        observation: { results: [{ source_call_id: id, content: t.observation }] },
        metrics: Object.keys(metrics).length ? metrics : undefined,
        extra: { [ATIF_STUDIO_KEY]: { index: t.index, reward: t.reward, ok: t.ok, timedOut: t.timedOut } },
      }),
    );
  }
  const trajectory = {
    schema_version: ATIF_VERSION,
    session_id: e.id,
    agent: drop({ name: e.policy ? `icstudio-${e.policy}` : "icstudio", version: "0.1.0", model_name: e.model }),
    steps,
    final_metrics: drop({ total_prompt_tokens: tin, total_completion_tokens: tout, total_cost_usd: anyCost ? cost : null, total_steps: steps.length }),
    extra: {
      [ATIF_STUDIO_KEY]: {
        environment: e.environment,
        dataset: e.dataset,
        taskId: e.taskId,
        taskIndex: e.taskIndex,
        query: e.query,
        gold: e.gold,
        hardness: e.hardness,
        db: e.db,
        policy: e.policy,
        turnLimit: e.turnLimit,
        reward: e.reward,
      },
    },
  };
  const taskName = `intercode-${e.dataset}-${e.taskId}`;
  const result = {
    id: e.id,
    task_name: taskName,
    trial_name: trialName(e),
    agent_info: drop({ name: trajectory.agent.name, version: "0.1.0", model_info: e.model ? { name: e.model } : undefined }),
    verifier_result: e.reward === null ? null : { rewards: { reward: e.reward } },
    exception_info: e.status === "error" ? { exception_type: "EpisodeError", exception_message: e.errorReason ?? "error" } : null,
    started_at: e.startedAt.toISOString(),
    finished_at: (e.endedAt ?? e.startedAt).toISOString(),
  };
  const config = {
    trial_name: trialName(e),
    task: { path: `intercode/${e.environment}/${e.dataset}/${e.taskId}` },
    agent: drop({ name: trajectory.agent.name, model_name: e.model }),
  };
  return { trajectory, reward: e.reward, result, config };
}

/** The trial's folder name: Harbor's `<task>__<short id>`, made safe for a file name. */
export function trialName(e: { dataset: string; taskId: string; id: string }): string {
  return `${e.dataset}-${e.taskId}`.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 80) + "__" + e.id.replace(/-/g, "").slice(-8);
}
