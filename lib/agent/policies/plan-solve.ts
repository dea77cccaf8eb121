import { DEFAULT_PROFILE, profileValue } from "@/lib/env/profiles";
import { barePrefix, FENCE_LANGUAGE, feedbackText, fenceInstruction, settingText, submitText, taskText } from "./prompts";
import type { Policy, TurnFeedback } from "./types";

/**
 * Reads a plan's steps: numbered lines, else bulleted lines, else the whole reply as one step.
 * `dotItems` (profile row `plan-solve.plan-reading` = numbered-dot-items): a step is what follows
 * `<number>. ` up to the next ` <number>.` or the end, over lines.
 */
export function parsePlan(reply: string, dotItems = false): string[] {
  if (dotItems) {
    const items = [...reply.matchAll(/\d+\.\s([\s\S]*?)(?=\s\d+\.|(?![\s\S]))/g)].map((m) => m[1]!.trim()).filter(Boolean);
    if (items.length > 0) return items;
  }
  const numbered = [...reply.matchAll(/^\s*(?:step\s*)?\d+[.):]\s+(.+)$/gim)].map((m) => m[1]!.trim());
  if (numbered.length > 0) return numbered;
  const bullets = [...reply.matchAll(/^\s*[-*•]\s+(.+)$/gm)].map((m) => m[1]!.trim());
  if (bullets.length > 0) return bullets;
  const whole = reply.trim();
  return [whole ? whole.split("\n")[0]!.slice(0, 300) : "Solve the task"];
}

/** The first `n` characters of an observation, as InterCode cut what it showed in Plan & Solve. */
const head = (text: string, n: number) => text.slice(0, n);

/**
 * Plan & Solve: the model first writes a plan; then it gives one action per step of the plan;
 * then, optionally, a refine phase of a few turns in which it may fix things. Under profile
 * intercode the rows `plan-solve.*` (lib/env/profiles.ts) make it run as InterCode's did: every
 * turn scored but no score shown, `Step:` / `Observation:` messages, an unusable reply using up
 * its step, and a refine phase only when the plan left the task unsolved.
 */
export const planSolvePolicy: Policy = {
  name: "plan-solve",
  summary: "a plan first, then one action per step, then an optional refine phase",
  start(ctx) {
    const profile = ctx.profile ?? DEFAULT_PROFILE;
    const lines = profileValue(profile, "plan-solve.step-message") === "step-and-observation-lines";
    const everyTurnScored = profileValue(profile, "plan-solve.scored") === "every-turn-hidden";
    const usesUpStep = profileValue(profile, "plan-solve.unusable-reply") === "uses-up-step";
    const refineIfUnsolved = profileValue(profile, "plan-solve.refine") === "if-unsolved-observation-only";
    const refine = Math.max(0, Math.min(ctx.refineTurns, ctx.maxTurns - 1));
    let steps: string[] = [];
    let current = 0;
    let refineLeft = refine;
    let refining = false;
    const stepMessage = (k: number) => (lines ? `Step: ${steps[k]}` : `Step ${k + 1} of ${steps.length}: ${steps[k]}\nGive the one action for this step.`);
    // What the model hears of a turn: its observation's text under `lines` (an unusable reply: why), else the studio's feedback.
    const heard = (fb: TurnFeedback, cut: number) => (fb.invalidReason ? feedbackText(ctx.env, fb) : head(fb.observation, cut));
    return {
      name: "plan-solve",
      maxTurns: ctx.maxTurns,
      system: [
        settingText(ctx.env, ctx.profile),
        "You will work in two stages. First you write a plan: a short numbered list of steps, each small enough to " +
          "be done with a single action. Then you are walked through the plan and give the action for each step, " +
          "seeing what each printed." +
          (refine > 0
            ? refineIfUnsolved
              ? ` If the task is not solved when the plan is done, you may take up to ${refine} more actions to fix it, each answered with what it printed.`
              : ` After the last step you see your score and may take up to ${refine} more actions to fix the result.`
            : ""),
        fenceInstruction(ctx.env, ctx.profile),
        submitText(ctx.env),
      ].join("\n\n"),
      opening: `${taskText(ctx.task, ctx.handicap)}\n\nWrite your plan now, as a numbered list (1. 2. 3. ...). Do not give any action yet.`,
      parse: { fenceLanguage: FENCE_LANGUAGE[ctx.env], barePrefix: barePrefix(ctx.env, ctx.profile) },
      planning: {
        accept(reply) {
          steps = parsePlan(reply, profileValue(profile, "plan-solve.plan-reading") === "numbered-dot-items").slice(0, Math.max(1, ctx.maxTurns - refine));
          current = 0;
          return { message: stepMessage(0), steps };
        },
        leavesOutReply: profileValue(profile, "plan-solve.plan-in-conversation") === "left-out",
      },
      bestTurnReward: profileValue(profile, "plan-solve.episode-reward") === "best-turn",
      // Under intercode a refine action that scores 1 ends the episode; the plan's steps run to the end.
      get stopOnSolved() {
        return refineIfUnsolved && refining;
      },
      // Studio: the last step of the plan and every refine turn are scored (the refine phase shows it).
      scoresTurn: () => everyTurnScored || (refine > 0 && current >= steps.length - 1),
      afterTurn(_i, fb: TurnFeedback) {
        if (lines) {
          if (refining) {
            if (refineLeft === 0) return { kind: "stop" };
            refineLeft--;
            return { kind: "continue", message: heard(fb, 250) };
          }
          if (!fb.invalidReason || usesUpStep) current++;
          if (current < steps.length) return { kind: "continue", message: `Observation: ${heard(fb, 1000)}\n${stepMessage(current)}` };
          if (refineLeft > 0 && (!refineIfUnsolved || (fb.reward ?? 0) < 1)) {
            refining = true;
            refineLeft--;
            return { kind: "continue", message: `The plan is done and the task is not solved yet. Fix it with your next action.\n\n${heard(fb, 250)}` };
          }
          return { kind: "stop" };
        }
        const feedback = feedbackText(ctx.env, everyTurnScored ? { ...fb, reward: undefined } : fb);
        if (!fb.invalidReason || usesUpStep) current++;
        if (current < steps.length) return { kind: "continue", message: `${feedback}\n\n${stepMessage(current)}` };
        if (refineLeft > 0 && (!refineIfUnsolved || (fb.reward ?? 0) < 1)) {
          refining = true;
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
