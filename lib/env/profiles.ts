import { z } from "zod";

/**
 * The episode engine's two profiles, and every difference between them in one table.
 *
 * - `intercode`: InterCode as it ran, quirks included: what its loops ran, when they scored, what
 *   its models were shown and stored. Recheck of InterCode's logs uses it; `icstudio eval
 *   --profile intercode` gives a new model paper conditions.
 * - `studio`: the Studio's own cleaner semantics; the default for people and for `eval`.
 *
 * A row is one difference: where it applies (environment, policy), which part of a turn it is
 * about, and the value each profile takes. Code reads a row with `profileValue(profile, key)`;
 * nothing else in the engine branches on the profile's name. `docs/profiles.md` holds the same
 * table, rendered by `renderProfileTable()` (its test fails when the two differ).
 *
 * Values are short names (read by code) that are also what the docs show; `what` says in words
 * what the row changes and what each value means.
 */
export const PROFILE_NAMES = ["intercode", "studio"] as const;
export const profileNameSchema = z.enum(PROFILE_NAMES);
export type ProfileName = z.infer<typeof profileNameSchema>;

/** The profile for people and for new runs unless asked otherwise. */
export const DEFAULT_PROFILE: ProfileName = "studio";

/** The part of a turn a row is about. */
export type ProfileAspect = "turn runs" | "scored" | "model is shown" | "turns" | "observation" | "action format" | "environment";

export interface ProfileRow<V = unknown> {
  /** Environment the row applies to ("any" for all). */
  env: "bash" | "sql" | "python" | "ctf" | "any";
  /** Policy the row applies to ("any" for all; "env log" for InterCode's environment logs, played through the environment itself). */
  policy: "single-turn" | "try-again" | "react" | "plan-solve" | "env log" | "any";
  aspect: ProfileAspect;
  /** What the row changes, and what its values mean. */
  what: string;
  intercode: V;
  studio: V;
  /**
   * Set on a row both profiles share: part of the declared loop (when a turn is scored), kept in
   * this table so that one screen shows all of the loop. Every other row is a difference.
   */
  shared?: true;
}

const row = <V>(r: ProfileRow<V>): ProfileRow<V> => r;

/**
 * Every difference between the profiles. Add a row here (and run the docs test with
 * IC_UPDATE_DOCS=1 to rewrite docs/profiles.md); never branch on a profile's name elsewhere.
 */
export const PROFILE_TABLE = {
  "python.turn": row<"def-as-written-else-print" | "as-written">({
    env: "python",
    policy: "any",
    aspect: "turn runs",
    what: "What an action runs. `def-as-written-else-print`: an action starting with `def` runs as written, any other runs as `print(<action>)` (a syntax error in that is `Error executing action: <error>`). `as-written`: the code runs as written and a final bare expression's value is printed, as in a REPL. The model's system prompt states the value's rule (lib/agent/policies/prompts.ts).",
    intercode: "def-as-written-else-print",
    studio: "as-written",
  }),
  "python.observation": row<"str-of-result-dict" | "printed-text">({
    env: "python",
    policy: "any",
    aspect: "observation",
    what: "What an action's observation is. `str-of-result-dict`: Python's `str()` of `{'output': <stdout>, 'error': <stderr>}`, or `{'error': 'Error: <exception>'}` when it raised. `printed-text`: what it printed, traceback included.",
    intercode: "str-of-result-dict",
    studio: "printed-text",
  }),
  "python.scored-function": row<"last-def-bound-to-gold-name" | "named-function">({
    env: "python",
    policy: "any",
    aspect: "scored",
    what: "Which function a score tests, and where. `last-def-bound-to-gold-name`: the function the scored action's first `def` defined, assigned to the gold's first `def` name, tested in the episode's own interpreter (a failed assignment is ignored, so whatever that name holds is tested); an action that does not start with `def` scores 0 and runs no test. `named-function`: the function named at submit (default: the name the tests call), tested in a fresh interpreter that replays the episode's cells.",
    intercode: "last-def-bound-to-gold-name",
    studio: "named-function",
  }),
  "python.after-score": row<"reset-to-gold" | "unchanged">({
    env: "python",
    policy: "any",
    aspect: "turn runs",
    what: "The interpreter after a scored `def` action. `reset-to-gold`: globals cleared, then the task's setup code and the gold solution run in it (so the gold's function is defined for the next turn). `unchanged`: the episode's interpreter is left as it was.",
    intercode: "reset-to-gold",
    studio: "unchanged",
  }),
  "python.try-again-feedback": row<"rewritten-test-feedback" | "output-and-pass-flag">({
    env: "python",
    policy: "try-again",
    aspect: "model is shown",
    what: "The turn's stored observation (what the model sees) when a scored turn's reward is below 1. `rewritten-test-feedback`: the observation is replaced by one of InterCode's three wordings (each run used one): `Test case did not pass. Please try again.`, `Failed <failed>/<total> Test Cases. Please try again.`, or `Failed Test Case: <first failing test>\\nPlease try again.`. `output-and-pass-flag`: the observation is kept and the model is also told whether the hidden tests pass. The model's system prompt says which it will see.",
    intercode: "rewritten-test-feedback",
    studio: "output-and-pass-flag",
  }),
  "sql.observation": row<"str-of-row-list" | "row-tuples">({
    env: "sql",
    policy: "any",
    aspect: "observation",
    what: "A query's stored observation under a model's loop. `str-of-row-list`: Python's `str()` of the list of row tuples, `[(1, 'a'), (2, 'b')]`. `row-tuples`: the row tuples back to back, `(1, 'a')(2, 'b')` (InterCode's environment logs, played through the environment, store this form under both profiles). The model's system prompt shows the form it will see.",
    intercode: "str-of-row-list",
    studio: "row-tuples",
  }),
  "sql.submit-semicolon": row<"runs-as-sql" | "submits">({
    env: "sql",
    policy: "any",
    aspect: "turn runs",
    what: "The action `submit;`. `runs-as-sql`: only a bare `submit` submits; `submit;` goes to the database (a syntax error). `submits`: it submits.",
    intercode: "runs-as-sql",
    studio: "submits",
  }),
  "react.action-format": row<"execute-brackets" | "action-line">({
    env: "any",
    policy: "react",
    aspect: "action format",
    what: "How a ReAct action is written and stored. `execute-brackets`: `execute[<code>]` runs the code and the turn stores the action as written (`execute[<code>]`; `submit` submits), the thought beside it (`thoughts`), as InterCode's ReAct logs hold them; a person's view may unwrap it. `action-line`: a `Thought:` line, then an `Action:` line or fenced block; the turn stores the code that ran.",
    intercode: "execute-brackets",
    studio: "action-line",
  }),
  "react.observation-message": row<"observation-line" | "output-block">({
    env: "any",
    policy: "react",
    aspect: "model is shown",
    what: "What the model is told after a ReAct action. `observation-line`: `Observation: <the observation>`, the observation's text as stored, cut to its first 350 characters as InterCode's ReAct cut it (a SQL row list, which InterCode cut to 25 rows, is not cut; the turn stores the observation whole). `output-block`: `Output:` and the observation (up to the observation budget), with a note when the action failed.",
    intercode: "observation-line",
    studio: "output-block",
  }),
  "plan-solve.step-message": row<"step-and-observation-lines" | "numbered-step-with-output">({
    env: "any",
    policy: "plan-solve",
    aspect: "model is shown",
    what: "What the model is told for each step of its plan. `step-and-observation-lines`: `Step: <step>` for the first, then `Observation: <the last observation, first 1,000 characters>` and `Step: <step>` on the next line, never the score (InterCode's Plan & Solve). `numbered-step-with-output`: `Step k of n: <step>` with a request for one action, after the last action's output.",
    intercode: "step-and-observation-lines",
    studio: "numbered-step-with-output",
  }),
  "plan-solve.scored": row<"every-turn-hidden" | "last-step-and-refine-shown">({
    env: "any",
    policy: "plan-solve",
    aspect: "scored",
    what: "Which Plan & Solve turns are scored. `every-turn-hidden`: every turn (each step and each refine action) is scored and its reward stored, none shown to the model (InterCode submitted after every action to log its reward). `last-step-and-refine-shown`: with a refine phase, the plan's last step and the refine actions are scored and the model sees the score; without one, no turn is.",
    intercode: "every-turn-hidden",
    studio: "last-step-and-refine-shown",
  }),
  "try-again.scored-at": row<"every-turn" | "submit-only">({
    env: "any",
    policy: "try-again",
    aspect: "scored",
    what: "When a Try Again turn is scored (`scoredAt`, read by the loop, recheck, the viewer's reward curve and `icstudio eval`). `every-turn`: each action is scored and the model sees the score; a reward of 1 ends the episode. The same under both profiles: part of the declared loop, not a difference.",
    intercode: "every-turn",
    studio: "every-turn",
    shared: true,
  }),
  "react.scored-at": row<"submit-only" | "every-turn">({
    env: "any",
    policy: "react",
    aspect: "scored",
    what: "When a ReAct turn is scored (`scoredAt`). `submit-only`: only the submit (the model's or the forced one at the turn limit) is scored. InterCode's ReAct logs hold reward 0 on every other turn (4,517 of 4,517 in its SQL ReAct log): its loop never scored them, so that 0 is no score, and a recheck neither scores nor compares those turns, nor does the reward curve draw them. The same under both profiles.",
    intercode: "submit-only",
    studio: "submit-only",
    shared: true,
  }),
  "plan-solve.unusable-reply": row<"uses-up-step" | "retries-step">({
    env: "any",
    policy: "plan-solve",
    aspect: "turns",
    what: "A step's reply with no usable action. `uses-up-step`: the turn is stored as invalid and the plan moves on to its next step (InterCode went through the plan's steps once each). `retries-step`: the same step is asked again.",
    intercode: "uses-up-step",
    studio: "retries-step",
  }),
  "plan-solve.refine": row<"if-unsolved-observation-only" | "always-with-score">({
    env: "any",
    policy: "plan-solve",
    aspect: "turns",
    what: "The refine phase after the plan (`plan-solve-refine-N`). `if-unsolved-observation-only`: it starts only when the plan's last step scored below 1; each refine message is the last observation alone (first 250 characters; the first also says the plan is done and the task not solved), and it ends at the first reward of 1 or after N actions. `always-with-score`: it always follows the plan, each message shows the output and the score, and it runs its N actions unless the model submits.",
    intercode: "if-unsolved-observation-only",
    studio: "always-with-score",
  }),
  "plan-solve.plan-reading": row<"numbered-dot-items" | "numbered-or-bulleted-lines">({
    env: "any",
    policy: "plan-solve",
    aspect: "turns",
    what: "How the plan's steps are read from the model's plan. `numbered-dot-items`: each `<number>. ` starts a step that runs to the next ` <number>.` or the end, across lines (InterCode's reading). `numbered-or-bulleted-lines`: lines numbered `1.`, `1)`, `1:` or `Step 1.`, else bulleted lines. Both: a plan with none is one step (its first line).",
    intercode: "numbered-dot-items",
    studio: "numbered-or-bulleted-lines",
  }),
  "plan-solve.plan-in-conversation": row<"left-out" | "kept">({
    env: "any",
    policy: "plan-solve",
    aspect: "model is shown",
    what: "The model's plan reply in the conversation it is sent afterwards. `left-out`: the later requests carry the steps one by one but not the plan reply itself (InterCode did not add it to its dialogue). `kept`: the plan reply stays in the conversation. Either way the transcript and the first turn keep it.",
    intercode: "left-out",
    studio: "kept",
  }),
  "plan-solve.episode-reward": row<"best-turn" | "final-state">({
    env: "any",
    policy: "plan-solve",
    aspect: "scored",
    what: "The episode's reward. `best-turn`: the best reward any turn scored, or the final score if higher (InterCode's Plan & Solve logged `summary.max_reward`, the maximum over its turns). `final-state`: the score of the episode's final state at submit.",
    intercode: "best-turn",
    studio: "final-state",
  }),
  "react.forced-submit": row<"appended-not-counted" | "not-recorded">({
    env: "any",
    policy: "react",
    aspect: "turns",
    what: "The submit forced when the turn limit is reached. `appended-not-counted`: it is logged as a last `submit` action that the turn count (`turns_taken`) leaves out. `not-recorded`: the episode is scored without a turn for it.",
    intercode: "appended-not-counted",
    studio: "not-recorded",
  }),
  "ctf.action-format": row<"cmd-wrapper" | "bare-command">({
    env: "ctf",
    policy: "any",
    aspect: "action format",
    what: "How a CTF action is logged. `cmd-wrapper`: `cmd <command>` runs the command (`submit <flag>` submits). `bare-command`: the command as typed. The model's system prompt asks for actions in that form, and under `cmd-wrapper` a reply's bare `cmd ...` line is an action without a fence.",
    intercode: "cmd-wrapper",
    studio: "bare-command",
  }),
  "bash.executor": row<"bash-c-shlex-per-action" | "persistent-shell">({
    env: "bash",
    policy: "any",
    aspect: "turn runs",
    what: "How an action runs. `bash-c-shlex-per-action`: each action is the one string `/bin/bash -c \"<action>\"` split into argv by Python's shlex (a double quote in the action ends the quoting and cuts the command; the rest becomes `$0`, `$1`...), run on its own with InterCode's image environment (PATH, HOME, HOSTNAME, `file_system_version`, `script`, no LANG); an unbalanced quote or output that is not UTF-8 gives `Malformed command`, an action past the time limit `Command timed out`; `cd` is emulated by a working directory kept outside the shell. `persistent-shell`: one bash for the episode, actions run as typed, variables and `cd` persist, an action ends when the jobs it sent to the background end (within the time limit), errors name the shell's own line numbers. The model's system prompt states the value's rule (what carries over between actions).",
    intercode: "bash-c-shlex-per-action",
    studio: "persistent-shell",
  }),
  "ctf.executor": row<"shlex-per-action" | "persistent-shell">({
    env: "ctf",
    policy: "any",
    aspect: "turn runs",
    what: "How an action runs. `shlex-per-action`: a leading `cmd` is dropped and the rest is split by Python's shlex and run as argv directly (no shell: `ls` works, `ls | wc` does not), from the task's folder, with `Malformed command` and `Command timed out` as for bash. `persistent-shell`: one bash for the episode, actions run as typed.",
    intercode: "shlex-per-action",
    studio: "persistent-shell",
  }),
  "bash.image": row<"bash-intercode" | "bash">({
    env: "bash",
    policy: "any",
    aspect: "environment",
    what: "The sandbox image bash episodes and their gold run in (docker backend; the local backend shares the host's tools under both). `bash-intercode`: Debian bullseye, the nearest a Debian mirror gets to InterCode's NL2Bash image (Ubuntu 22.04): bash 5.1 and readline 8.1, merged /usr, mawk as `awk`, no `xxd`, `md5deep` or `rename`, `column` and `cal` from bsdmainutils, only InterCode's packages (its published list less imagemagick, plus what its logs show it had: git's recommends and dbus by its /etc/group, procps by `ps` and `uptime`), the ssh-agent group named `_ssh` as Ubuntu names it, and host names looked up in /etc/hosts alone (no network, so no DNS: an unknown name is `Name or service not known`); where a sandbox's tools differ (local), `awk` runs mawk and the three missing tools answer `command not found`. `bash`: Debian bookworm with the Studio's fuller tool set (gawk, xxd, md5deep, rename, file, bc, zip, sqlite3...). docker/build-base-image.sh lists both.",
    intercode: "bash-intercode",
    studio: "bash",
  }),
  "bash.between-episodes": row<"git-reset-same-sandbox" | "fresh-sandbox">({
    env: "bash",
    policy: "any",
    aspect: "environment",
    what: "What a new episode on the same file system starts from. `git-reset-same-sandbox`: the last episode's sandbox, reset with `git reset --hard; git clean -fd` (so changes in git-ignored places, such as /root, and running processes carry over, as in InterCode's long-lived containers). `fresh-sandbox`: a new sandbox over a fresh copy.",
    intercode: "git-reset-same-sandbox",
    studio: "fresh-sandbox",
  }),
  "bash.gold-run": row<"eval-sandbox-reset-each-score" | "cached-if-deterministic-else-fresh-sandbox">({
    env: "bash",
    policy: "any",
    aspect: "scored",
    what: "Where gold runs for a score. `eval-sandbox-reset-each-score`: in one evaluation sandbox kept for the episodes, reset with git before each score and gold run again (through the same executor, from \"/\", so gold commands are cut by quotes too). `cached-if-deterministic-else-fresh-sandbox`: gold runs as an action in a fresh sandbox, in a shell started as the agent's is (same limits; its output formed as an observation). A gold shown to be deterministic is read from a cache (checked at its first use: run twice, at least 1.1 s apart, each in a fresh sandbox, with the same output and the same file changes; keyed by the gold command, the built tree, the backend, the image and the limits, so a changed task set or file system checks it again). Any other gold (one that names the clock, the load, process ids, randomness, the host or the network, walks `/`, starts a background job, or is documented nondeterministic in datasets/bash/gold-exceptions.json, or whose two runs differed) runs at each score in a fresh sandbox opened with the first action after reset (and right after a score that does not end the episode), so that it reads the time, the load or the process tree as the agent's last action did, milliseconds apart.",
    intercode: "eval-sandbox-reset-each-score",
    studio: "cached-if-deterministic-else-fresh-sandbox",
  }),
  "bash.reward-status": row<"whitespace-split-md5sum-text" | "parsed-status-content-md5">({
    env: "bash",
    policy: "any",
    aspect: "scored",
    what: "How the reward reads the file changes. `whitespace-split-md5sum-text`: `git status --short` split on white space and paired (a path with a space falls apart), each shared new path compared by the text `md5sum <path>` prints when the path has a `.`, else by `md5deep -r` (absent from InterCode's image, so such paths always agree). `parsed-status-content-md5`: the status parsed path by path (quoted paths too), files compared by md5 of their contents, directories by an md5 over their files.",
    intercode: "whitespace-split-md5sum-text",
    studio: "parsed-status-content-md5",
  }),
  "ctf.submit-observation": row<"flag-verdict" | "submitted-flag">({
    env: "ctf",
    policy: "any",
    aspect: "observation",
    what: "The observation of `submit <flag>`. `flag-verdict`: `The submitted flag is correct.` or `The submitted flag is incorrect.` (the flag is the word after `submit`). `submitted-flag`: the flag as submitted.",
    intercode: "flag-verdict",
    studio: "submitted-flag",
  }),
  "ctf.wrong-flag": row<"turn-and-continue" | "ends-episode">({
    env: "ctf",
    policy: "any",
    aspect: "turns",
    what: "A model's submit with a wrong flag. `turn-and-continue`: it is a turn like any other (reward 0, its observation the verdict of `ctf.submit-observation`) and the episode goes on; only a correct flag or the turn limit ends it, with no submit forced at the limit (InterCode's CTF loop stopped at reward 1 only, and its summaries count `num_submissions`). `ends-episode`: any submit ends and scores the episode.",
    intercode: "turn-and-continue",
    studio: "ends-episode",
  }),
} satisfies Record<string, ProfileRow>;

export type ProfileKey = keyof typeof PROFILE_TABLE;
export type ProfileValue<K extends ProfileKey> = (typeof PROFILE_TABLE)[K]["intercode"];

/** The value `profile` takes for one row of the table. */
export function profileValue<K extends ProfileKey>(profile: ProfileName, key: K): ProfileValue<K> {
  return PROFILE_TABLE[key][profile] as ProfileValue<K>;
}

/**
 * When a policy's turns are scored, as the table declares it: `every-turn` (Try Again; Plan &
 * Solve under `plan-solve.scored` = every-turn-hidden), `submit-only` (ReAct, Single Turn), or
 * `some-turns` (Plan & Solve's last step and refine turns under the studio profile). Null for a
 * person's episode or an unknown policy: its recording says which turns were scored.
 */
export function scoredAt(profile: ProfileName, policy: string | null): "every-turn" | "submit-only" | "some-turns" | null {
  if (!policy) return null;
  if (policy.startsWith("try-again")) return profileValue(profile, "try-again.scored-at");
  if (policy === "react") return profileValue(profile, "react.scored-at");
  if (policy.startsWith("plan-solve")) return profileValue(profile, "plan-solve.scored") === "every-turn-hidden" ? "every-turn" : "some-turns";
  if (policy === "single-turn") return "submit-only";
  return null;
}

const cell = (v: unknown) => `\`${typeof v === "string" ? v : JSON.stringify(v)}\``;
const escapeCell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The table as Markdown, as docs/profiles.md holds it between its generated-table markers. */
export function renderProfileTable(): string {
  const lines = ["| row | env | policy | aspect | intercode | studio | what |", "| --- | --- | --- | --- | --- | --- | --- |"];
  for (const [key, r] of Object.entries(PROFILE_TABLE) as [string, ProfileRow][]) {
    lines.push(`| \`${key}\` | ${r.env} | ${r.policy} | ${r.aspect} | ${cell(r.intercode)} | ${cell(r.studio)} | ${escapeCell(r.what)} |`);
  }
  return lines.join("\n") + "\n";
}

export const PROFILE_DOC_BEGIN = "<!-- profile table: generated from lib/env/profiles.ts; do not edit by hand -->";
export const PROFILE_DOC_END = "<!-- end of profile table -->";
