import type { EnvName } from "@/lib/datasets/types";
import { ENV_FIDELITY } from "@/lib/env/fidelity";
import { DEFAULT_PROFILE, profileValue, scoredAt } from "@/lib/env/profiles";
import { FENCE_LANGUAGE, feedbackText, settingText, submitText, taskText } from "./prompts";
import type { Policy } from "./types";

/**
 * The observation as InterCode's ReAct put it in the prompt: a text cut to its first 350
 * characters. (A SQL result came to it as a list of rows, cut to 25 rows: a row list, which
 * starts with `[`, is shown whole up to the observation budget.)
 */
function observationShown(env: EnvName, observation: string): string {
  return ENV_FIDELITY[env].resultSets && observation.startsWith("[") ? observation : observation.slice(0, 350);
}

/** ReAct: each reply is a thought and then an action; the thought is stored with the turn. */
export const reactPolicy: Policy = {
  name: "react",
  summary: "a thought, then an action, each turn",
  start(ctx) {
    const lang = FENCE_LANGUAGE[ctx.env];
    const brackets = profileValue(ctx.profile ?? DEFAULT_PROFILE, "react.action-format") === "execute-brackets";
    const observationLine = profileValue(ctx.profile ?? DEFAULT_PROFILE, "react.observation-message") === "observation-line";
    const actionLine = brackets
      ? "Action: execute[<the one action to run>], on one line (it may span lines inside the brackets), or submit.\n"
      : `Action: the one action to run, on the same line or in a \`\`\`${lang} block right after it.\n`;
    return {
      name: "react",
      maxTurns: ctx.maxTurns,
      system: [
        settingText(ctx.env, ctx.profile),
        `Work step by step, with at most ${ctx.maxTurns} actions. Each reply has two parts:\n` +
          "Thought: what you know so far and what you will do next, in a sentence or two.\n" +
          actionLine +
          (observationLine
            ? "You will then get an Observation: line with what the action printed, and write your next Thought and Action."
            : "You will then see what the action printed, and write your next Thought and Action."),
        `${submitText(ctx.env)} (Write it as the Action.)`,
      ].join("\n\n"),
      opening: taskText(ctx.task, ctx.handicap),
      parse: { fenceLanguage: lang, actionLabel: "Action", thoughtLabel: "Thought", executeBrackets: brackets },
      stopOnSolved: false,
      forcedSubmit: profileValue(ctx.profile ?? DEFAULT_PROFILE, "react.forced-submit"),
      scoresTurn: () => scoredAt(ctx.profile ?? DEFAULT_PROFILE, "react") === "every-turn",
      afterTurn: (_i, fb) => ({
        kind: "continue",
        message:
          observationLine && !fb.invalidReason && fb.actor === "model"
            ? `Observation: ${observationShown(ctx.env, fb.observation)}`
            : feedbackText(ctx.env, fb),
      }),
    };
  },
};
