import { ENV_FIDELITY, type TurnScoring } from "@/lib/env/fidelity";
import { DEFAULT_PROFILE, scoredAt } from "@/lib/env/profiles";
import { barePrefix, FENCE_LANGUAGE, feedbackText, fenceInstruction, settingText, submitText, taskText } from "./prompts";
import type { Policy } from "./types";

/** What the model is told about its turns' scores, by how the environment scores a turn (lib/env/fidelity.ts). */
const SCORING_TEXT: Record<TurnScoring, (rewritten: boolean) => string> = {
  state: () => "After each action you will also see the score your work would get if you submitted it at that moment, from 0.00 to 1.00 (solved).",
  "defined-function": (rewritten) =>
    rewritten
      ? "An action that defines a function is run against the hidden tests at once; when one fails, you are told so in place of the action's output."
      : "After an action that defines a function you will be told whether the hidden tests pass with it.",
  none: () => "Your answer is only checked when you submit a flag.",
};

/**
 * Try Again: up to N actions; after each, the model sees the output and the score a submit would
 * get now. Ends at a perfect score, at the limit, or when the model submits or skips. In python,
 * only actions that define a function are scored, and the model learns only whether the hidden
 * tests passed.
 */
export const tryAgainPolicy: Policy = {
  name: "try-again",
  summary: "up to N actions, each followed by its output and the current score",
  start(ctx) {
    const rules = ENV_FIDELITY[ctx.env];
    const rewritten = rules.feedbackWording(ctx.profile ?? DEFAULT_PROFILE, "try-again") !== null;
    const scoring = SCORING_TEXT[rules.turnScoring](rewritten);
    return {
      name: "try-again",
      maxTurns: ctx.maxTurns,
      system: [
        settingText(ctx.env, ctx.profile),
        `You may take up to ${ctx.maxTurns} actions. After each one you will see what it printed. ${scoring} ` +
          "The episode ends as soon as the task is solved, when you submit or skip, or when the actions run out.",
        fenceInstruction(ctx.env, ctx.profile),
        submitText(ctx.env),
      ].join("\n\n"),
      opening: taskText(ctx.task, ctx.handicap),
      parse: { fenceLanguage: FENCE_LANGUAGE[ctx.env], barePrefix: barePrefix(ctx.env, ctx.profile) },
      stopOnSolved: true,
      scoresTurn: () => scoredAt(ctx.profile ?? DEFAULT_PROFILE, "try-again") === "every-turn",
      afterTurn: (_i, fb) => ({ kind: "continue", message: feedbackText(ctx.env, fb) }),
    };
  },
};
