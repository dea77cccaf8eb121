/**
 * How InterCode's bash and CTF environments ran a command, reproduced for the `intercode` profile.
 *
 * InterCode did not keep a shell: each action went to the container as the single string
 * `/bin/bash -c "<action>"`, which the Docker client split into argv with Python's `shlex.split`
 * (POSIX rules). So a double quote inside the action ends the quoting and cuts the command (the
 * words after the cut become `$0`, `$1`, ... of bash), an unbalanced quote is an error the
 * environment reported as "Malformed command" (as it did for output that is not UTF-8), and an
 * action still running after 10 s was reported as "Command timed out". `cd` was emulated: the
 * environment kept a working directory of its own and ran every later action there.
 *
 * This module holds the pure parts (the split, the path rule, the status parse); `intercode-run.ts`
 * runs them in a sandbox.
 */

/** The observation InterCode gave when the command could not be split or its output decoded. */
export const MALFORMED_COMMAND = "Malformed command";
/** The observation InterCode gave when an action ran past its time limit. */
export const COMMAND_TIMED_OUT = "Command timed out";

/** Why a string could not be split, worded as Python's shlex words it. */
export class ShlexError extends Error {}

const WHITESPACE = " \t\r\n";
const QUOTES = "'\"";
const ESCAPE = "\\";
/** Inside these quotes a backslash escapes (only the quote itself and the backslash). */
const ESCAPED_QUOTES = '"';

/**
 * Splits `s` into words by Python's `shlex.split(s)` (POSIX mode, no comments): a state machine
 * over whitespace, single quotes (literal), double quotes (a backslash escapes `"` and `\` only)
 * and backslash escapes outside quotes. Quotes may open and close anywhere inside a word.
 * @throws ShlexError "No closing quotation" or "No escaped character", as Python raises them.
 */
export function shlexSplit(s: string): string[] {
  const words: string[] = [];
  let i = 0;
  for (;;) {
    // One call of Python's read_token.
    let state: string | null = " ";
    let token = "";
    let quoted = false;
    let escapedState = " ";
    for (;;) {
      const c = i < s.length ? s[i++]! : "";
      if (state === " ") {
        if (!c) {
          state = null;
          break;
        } else if (WHITESPACE.includes(c)) {
          if (token || quoted) break;
        } else if (c === ESCAPE) {
          escapedState = "a";
          state = c;
        } else if (QUOTES.includes(c)) {
          state = c;
        } else {
          token = c;
          state = "a";
        }
      } else if (QUOTES.includes(state)) {
        quoted = true;
        if (!c) throw new ShlexError("No closing quotation");
        if (c === state) state = "a";
        else if (c === ESCAPE && ESCAPED_QUOTES.includes(state)) {
          escapedState = state;
          state = c;
        } else token += c;
      } else if (state === ESCAPE) {
        if (!c) throw new ShlexError("No escaped character");
        // In quotes, a backslash before anything but the quote or itself stays.
        if (QUOTES.includes(escapedState) && c !== state && c !== escapedState) token += state;
        token += c;
        state = escapedState;
      } else {
        // state "a": inside a word
        if (!c) {
          state = null;
          break;
        } else if (WHITESPACE.includes(c)) {
          state = " ";
          if (token || quoted) break;
        } else if (QUOTES.includes(c)) {
          state = c;
        } else if (c === ESCAPE) {
          escapedState = "a";
          state = c;
        } else token += c;
      }
    }
    if (!quoted && token === "") {
      if (state === null) return words;
      continue;
    }
    words.push(token);
    if (state === null) return words;
  }
}

/** The argv InterCode's executor ran for `action` with `shell` (its `clean_cmd`, then the client's split). @throws ShlexError */
export function intercodeArgv(action: string, shell = "/bin/bash"): string[] {
  return shlexSplit(`${shell} -c "${action.trim()}"`);
}

/**
 * The working directory after `cd <arg>` from `current`, resolved as InterCode resolved it: as a
 * plain string (`..` drops a segment, `.` and empty segments go), never asking the file system.
 */
export function simplifyPath(current: string, changed: string): string {
  if (!changed) return current;
  const base = changed.startsWith("/") ? "" : current;
  const parts: string[] = [];
  for (const seg of `${base}/${changed}`.split("/")) {
    if (seg === "..") parts.pop();
    else if (seg && seg !== ".") parts.push(seg);
  }
  return "/" + parts.join("/");
}

/**
 * How InterCode rewrote a `cd` action before running it: an action starting with "cd" keeps
 * what follows its first "cd " as the argument, becomes `cd <resolved path>`, and runs from "/";
 * when it succeeds, the resolved path becomes the working directory. Null for any other action
 * (and for a bare "cd", which has no "cd " in it).
 */
export function intercodeCd(action: string, workdir: string): { command: string; target: string } | null {
  if (!action.startsWith("cd")) return null;
  const at = action.indexOf("cd ");
  if (at < 0) return null;
  const target = simplifyPath(workdir, action.slice(at + 3).trim());
  return { command: `cd ${target}`, target };
}

/**
 * `git status --short` read as InterCode read it: the output split on any white space and taken
 * two words at a time as (code, path). A path with a space (which git quotes) falls apart into
 * pieces that pair up wrongly, as it did there; an odd word at the end is dropped.
 */
export function intercodeStatusEntries(status: string): { code: string; path: string }[] {
  const words = status.split(/\s+/).filter(Boolean);
  const out: { code: string; path: string }[] = [];
  for (let i = 0; i + 1 < words.length; i += 2) out.push({ code: words[i]!, path: words[i + 1]! });
  return out;
}

/**
 * The command InterCode used to fingerprint a changed path: `md5sum <path>` when the path has a
 * "." in it, else `md5deep -r <path>` (a tool its image did not have, so every such path agreed).
 */
export function intercodeHashCommand(path: string): string {
  return path.includes(".") ? `md5sum ${path}` : `md5deep -r ${path}`;
}
