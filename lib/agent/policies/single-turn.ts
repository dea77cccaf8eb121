import { barePrefix, FENCE_LANGUAGE, fenceInstruction, settingText, taskText } from "./prompts";
import type { Policy } from "./types";

/** Single Turn: one action, then the work is submitted as it stands. */
export const singleTurnPolicy: Policy = {
  name: "single-turn",
  summary: "one action, then submit",
  start(ctx) {
    return {
      name: "single-turn",
      maxTurns: 1,
      system: [
        settingText(ctx.env, ctx.profile),
        "You have exactly one action. It will be run once and your work is then scored as it stands, so make that " + "one action answer the task completely.",
        fenceInstruction(ctx.env, ctx.profile),
      ].join("\n\n"),
      opening: taskText(ctx.task, ctx.handicap),
      parse: { fenceLanguage: FENCE_LANGUAGE[ctx.env], barePrefix: barePrefix(ctx.env, ctx.profile) },
      stopOnSolved: false,
      scoresTurn: () => false,
      afterTurn: () => ({ kind: "stop" }),
    };
  },
};
