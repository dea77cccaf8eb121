/**
 * The bash and CTF rows of the profile table (the `intercode` profile reproduces InterCode as it
 * ran, `studio` keeps the Studio's own semantics). Same shape as lib/env/profiles.ts's rows; read
 * with `shellProfileValue`, never by branching on a profile's name.
 */
export type ShellProfileName = "intercode" | "studio";

interface ShellRow<V extends string> {
  env: "bash" | "ctf";
  policy: "any";
  aspect: "turn runs" | "scored" | "observation" | "environment";
  what: string;
  intercode: V;
  studio: V;
}
const row = <V extends string>(r: ShellRow<V>): ShellRow<V> => r;

export const SHELL_PROFILE_ROWS = {
  "bash.executor": row<"bash-c-shlex-per-action" | "persistent-shell">({
    env: "bash",
    policy: "any",
    aspect: "turn runs",
    what: "How an action runs. `bash-c-shlex-per-action`: each action is the one string `/bin/bash -c \"<action>\"` split into argv by Python's shlex (a double quote in the action ends the quoting and cuts the command; the rest becomes `$0`, `$1`...), run on its own with InterCode's image environment (PATH, HOME, HOSTNAME, `file_system_version`, `script`, no LANG); an unbalanced quote or output that is not UTF-8 gives `Malformed command`, an action past the time limit `Command timed out`; `cd` is emulated by a working directory kept outside the shell. `persistent-shell`: one bash for the episode, actions run as typed, variables and `cd` persist, errors name the shell's own line numbers.",
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
  "bash.between-episodes": row<"git-reset-same-sandbox" | "fresh-sandbox">({
    env: "bash",
    policy: "any",
    aspect: "environment",
    what: "What a new episode on the same file system starts from. `git-reset-same-sandbox`: the last episode's sandbox, reset with `git reset --hard; git clean -fd` (so changes in git-ignored places, such as /root, and running processes carry over, as in InterCode's long-lived containers). `fresh-sandbox`: a new sandbox over a fresh copy.",
    intercode: "git-reset-same-sandbox",
    studio: "fresh-sandbox",
  }),
  "bash.gold-run": row<"eval-sandbox-reset-each-score" | "fresh-sandbox-once">({
    env: "bash",
    policy: "any",
    aspect: "scored",
    what: "Where gold runs for a score. `eval-sandbox-reset-each-score`: in one evaluation sandbox kept for the episodes, reset with git before each score and gold run again (through the same executor, from \"/\", so gold commands are cut by quotes too). `fresh-sandbox-once`: once per task in a fresh sandbox, its output and changes cached.",
    intercode: "eval-sandbox-reset-each-score",
    studio: "fresh-sandbox-once",
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
} as const;

export type ShellProfileKey = keyof typeof SHELL_PROFILE_ROWS;

/** The value `profile` takes for one bash/CTF row. */
export function shellProfileValue<K extends ShellProfileKey>(profile: ShellProfileName, key: K): (typeof SHELL_PROFILE_ROWS)[K][ShellProfileName] {
  return SHELL_PROFILE_ROWS[key][profile];
}
