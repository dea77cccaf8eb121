import { barePrefix, FENCE_LANGUAGE, feedbackText, fenceInstruction, settingText, submitText, taskText } from "./prompts";
import type { Policy, TurnFeedback } from "./types";

/** Reads a plan's steps: numbered lines, else bulleted lines, else the whole reply as one step. */
export function parsePlan(reply: string): string[] {
  const numbered = [...reply.matchAll(/^\s*(?:step\s*)?\d+[.):]\s+(.+)$/gim)].map((m) => m[1]!.trim());
  if (numbered.length > 0) return numbered;
  const bullets = [...reply.matchAll(/^\s*[-*•]\s+(.+)$/gm)].map((m) => m[1]!.trim());
  if (bullets.length > 0) return bullets;
  const whole = reply.trim();
  return [whole ? whole.split("\n")[0]!.slice(0, 300) : "Solve the task"];
}

/**
 * Plan & Solve: the model first writes a plan; then it gives one action per step of the plan;
 * then, optionally, a refine phase of a few turns in which it sees the score and may fix things.
 */
export const planSolvePolicy: Policy = {
  name: "plan-solve",
  summary: "a plan first, then one action per step, then an optional refine phase",
  start(ctx) {
    const refine = Math.max(0, Math.min(ctx.refineTurns, ctx.maxTurns - 1));
    let steps: string[] = [];
    let current = 0;
    let refineLeft = refine;
    const stepMessage = (k: number) => `Step ${k + 1} of ${steps.length}: ${steps[k]}\nGive the one action for this step.`;
    return {
      name: "plan-solve",
      maxTurns: ctx.maxTurns,
      system: [
        settingText(ctx.env, ctx.profile),
        "You will work in two stages. First you write a plan: a short numbered list of steps, each small enough to " +
          "be done with a single action. Then you are walked through the plan and give the action for each step, " +
          "seeing what each printed." +
          (refine > 0 ? ` After the last step you see your score and may take up to ${refine} more actions to fix the result.` : ""),
        fenceInstruction(ctx.env, ctx.profile),
        submitText(ctx.env),
      ].join("\n\n"),
      opening: `${taskText(ctx.task, ctx.handicap)}\n\nWrite your plan now, as a numbered list (1. 2. 3. ...). Do not give any action yet.`,
      parse: { fenceLanguage: FENCE_LANGUAGE[ctx.env], barePrefix: barePrefix(ctx.env, ctx.profile) },
      planning: {
        accept(reply) {
          steps = parsePlan(reply).slice(0, Math.max(1, ctx.maxTurns - refine));
          current = 0;
          return { message: stepMessage(0), steps };
        },
      },
      stopOnSolved: false,
      // The last step of the plan and every refine turn are scored (the refine phase shows it).
      scoresTurn: () => refine > 0 && current >= steps.length - 1,
      afterTurn(_i, fb: TurnFeedback) {
        const feedback = feedbackText(ctx.env, fb);
        if (!fb.invalidReason) current++;
        if (current < steps.length) return { kind: "continue", message: `${feedback}\n\n${stepMessage(current)}` };
        if (refineLeft > 0) {
          refineLeft--;
          return {
            kind: "continue",
            message: `${feedback}\n\nThe plan is done. You may take up to ${refineLeft + 1} more action${refineLeft === 0 ? "" : "s"} to fix the result, or submit.`,
          };
        }
        return { kind: "stop" };
      },
    };
  },
};
