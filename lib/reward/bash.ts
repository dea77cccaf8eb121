import { erf } from "./erf";
import { type GitStatusEntry, parseGitStatus } from "./git-status";
import { clamp01, pyRound } from "./round";
import { tfidfCosine } from "./tfidf";
import type { BashBreakdown, RewardResult } from "./types";

/** What the bash environment gathered from the agent's sandbox and from gold's. */
export interface BashRewardInput {
  /** `git status --short` of /testbed after the agent's actions, as text or already parsed. */
  agentStatus: string | readonly GitStatusEntry[];
  /** The same after the gold command ran in its own fresh sandbox. */
  goldStatus: string | readonly GitStatusEntry[];
  /**
   * md5 per changed path in each sandbox (for a directory, a recursive md5 over its files), keyed
   * by the path as git names it; a trailing "/" on a directory is optional in the key.
   */
  agentHashes: Readonly<Record<string, string>>;
  goldHashes: Readonly<Record<string, string>>;
  /** The agent's last observation (null when there was none). */
  agentObservation: string | null | undefined;
  /** What the gold command printed (null when it could not be run). */
  goldObservation: string | null | undefined;
}

/**
 * Status codes whose contents InterCode compares by md5: new files and directories ("??"), and
 * added or copied ones ("A", "C"). A path both merely modified (" M") is not hashed.
 */
const HASHED_CODES = new Set(["A", "??", "C"]);

/**
 * InterCode's bash reward: 0.01 + file changes + file contents + output.
 *
 * - file changes: round(0.33 × (1 − erf(k)), 2) where k counts the status entries (path and status
 *   code together) found on one side only. The same path with different codes on the two sides
 *   (agent modified, gold deleted) counts on both sides, as in InterCode.
 * - file contents: among the entries on both sides with code ??, A or C, the share whose md5 agree,
 *   × 0.33, rounded to 2; 0.33 when there are none. A path hashed on neither side agrees (InterCode
 *   compared the two md5 commands' outputs, which fail alike).
 * - output: round(0.33 × tf-idf cosine(agent's last observation, gold's output), 2).
 *
 * InterCode kept the float sum unrounded (0.6900000000000001); `reward` is that sum rounded like
 * Python's round(x, 2) and kept in [0, 1], and `raw` is the sum itself. Never throws.
 */
export function bashReward(input: BashRewardInput): RewardResult<BashBreakdown> {
  const agent = toEntries(input.agentStatus);
  const gold = toEntries(input.goldStatus);
  const agentKeys = new Map(agent.map((e) => [entryKey(e), e]));
  const goldKeys = new Map(gold.map((e) => [entryKey(e), e]));

  const missing = [...goldKeys].filter(([k]) => !agentKeys.has(k)).map(([, e]) => e);
  const extra = [...agentKeys].filter(([k]) => !goldKeys.has(k)).map(([, e]) => e);
  const fileChanges = pyRound(0.33 * (1 - erf(missing.length + extra.length)), 2);

  const both = [...agentKeys].filter(([k, e]) => goldKeys.has(k) && HASHED_CODES.has(e.code)).map(([, e]) => e);
  const wrong = both.filter((e) => lookupHash(input.agentHashes, e.path) !== lookupHash(input.goldHashes, e.path));
  const fileContents = both.length === 0 ? 0.33 : pyRound(0.33 * ((both.length - wrong.length) / both.length), 2);

  const output = pyRound(0.33 * similarity(input.agentObservation, input.goldObservation), 2);

  const raw = 0.01 + fileChanges + fileContents + output;
  return {
    reward: clamp01(pyRound(raw, 2)),
    raw,
    breakdown: {
      kind: "bash",
      fileChanges,
      fileContents,
      output,
      missing: uniqueSorted(missing.map((e) => e.path)),
      extra: uniqueSorted(extra.map((e) => e.path)),
      wrong: uniqueSorted(wrong.map((e) => e.path)),
    },
  };
}

function toEntries(status: string | readonly GitStatusEntry[] | null | undefined): GitStatusEntry[] {
  if (typeof status === "string") return parseGitStatus(status);
  return Array.isArray(status) ? status.filter((e) => e && typeof e.path === "string" && typeof e.code === "string") : [];
}

function entryKey(e: GitStatusEntry): string {
  return `${e.code}\u0000${e.path}`;
}

function lookupHash(hashes: Readonly<Record<string, string>> | null | undefined, path: string): string | undefined {
  if (!hashes) return undefined;
  const own = (key: string) => (Object.hasOwn(hashes, key) ? hashes[key] : undefined);
  return own(path) ?? (path.endsWith("/") ? own(path.replace(/\/+$/, "")) : own(`${path}/`));
}

/** tf-idf cosine; when a side has no text at all, InterCode's fallback of plain equality. */
function similarity(agent: string | null | undefined, gold: string | null | undefined): number {
  if (typeof agent !== "string" || typeof gold !== "string") return (agent ?? null) === (gold ?? null) ? 1 : 0;
  return tfidfCosine(agent, gold);
}

function uniqueSorted(paths: string[]): string[] {
  return [...new Set(paths)].sort();
}
