import "server-only";
import { parseLoggedAction } from "@/lib/agent/parse-action";
import type { Task } from "@/lib/datasets/types";
import type { TurnRecord } from "@/lib/db/record";
import { borrowed } from "@/lib/env/borrowed";
import { fidelityOf, unwrapRowList } from "@/lib/env/fidelity";
import { profileValue, scoredAt, type ProfileName } from "@/lib/env/profiles";
import type { Environment } from "@/lib/env/types";
import { memoryRecorder } from "@/lib/episodes/memory-recorder";
import { EpisodeSession, type ActorRef } from "@/lib/episodes/session";
import { stripAnsi } from "@/lib/viewer/ansi";
import type { DisagreementCategory, EpisodeCheck, TurnCheck } from "@/lib/viewer/view-types";

/** A recorded turn, as the check needs it. */
export type RecordedTurn = Pick<TurnRecord, "index" | "action" | "observation" | "reward">;

/** The loop that produced a recorded episode, which the replay runs again. */
export interface ReplayLoop {
  /** InterCode's logs replay under "intercode"; the Studio's own episodes under "studio". */
  profile: ProfileName;
  /** The policy that played (try-again, react, plan-solve, single-turn; null: a person or unknown). */
  policy: string | null;
  /** The episode's turn limit: a ReAct `submit` logged past it is the forced final submit. */
  turnLimit: number | null;
}

/** Rewards agree within this (InterCode's logs hold unrounded floats; the Studio rounds to 2 places). */
export const REWARD_TOLERANCE = 0.01 + 1e-9;

/**
 * Normalises an observation for comparison: escape sequences and trailing white space on every
 * line dropped, line endings unified, leading and trailing blank lines dropped.
 */
export function normalizeObservation(s: string): string {
  return stripAnsi(unwrapPythonResult(s))
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((l) => l.replace(/\s+$/, ""))
    .join("\n")
    .trim();
}

/** Decodes a Python string literal ('...' or "...") starting at `i`; returns the text and the index after it. */
function readPyString(s: string, i: number): { text: string; end: number } | null {
  const q = s[i];
  if (q !== "'" && q !== '"') return null;
  let out = "";
  const esc: Record<string, string> = { n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0" };
  for (let j = i + 1; j < s.length; j++) {
    const c = s[j];
    if (c === q) return { text: out, end: j + 1 };
    if (c === "\\") {
      const n = s[++j];
      if (n === "x") {
        out += String.fromCharCode(parseInt(s.slice(j + 1, j + 3), 16));
        j += 2;
      } else out += esc[n] ?? "\\" + n;
    } else out += c;
  }
  return null;
}

/**
 * InterCode's Python logs record each observation as the repr of a dict,
 * `{'output': '...', 'error': '...'}`; the Studio's observation is the printed text. This turns the
 * former into output followed by error, and leaves anything else as it is.
 */
export function unwrapPythonResult(s: string): string {
  const head = "{'output': ";
  if (!s.startsWith(head)) return s;
  const out = readPyString(s, head.length);
  if (!out || !s.startsWith(", 'error': ", out.end)) return s;
  const err = readPyString(s, out.end + ", 'error': ".length);
  if (!err || s.slice(err.end).trim() !== "}") return s;
  return err.text ? `${out.text}${out.text && !out.text.endsWith("\n") ? "\n" : ""}${err.text}` : out.text;
}

export const rewardsAgree = (a: number, b: number) => Math.abs(a - b) <= REWARD_TOLERANCE;

const TIME_PATTERNS = [
  /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?\b/g,
  /\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d+ [\d:]+( \w+)? \d{4}\b/g,
  /\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d+\s+(\d{2}:\d{2}|\d{4})\b/g,
  /\b\d{1,2}:\d{2}(:\d{2})?\b/g,
];
/** Ids: hex addresses and a container's 12-hex-digit host name (a differing number alone is content: rows, counts). */
const ID_PATTERNS = [/0x[0-9a-f]+/gi, /\b(?=[0-9a-f]*\d)[0-9a-f]{12}\b/g];
/** What differs between InterCode's bash (5.1.16) and ours (5.1.4 in the bash-intercode image, the host's 5.2 on the local backend): its version, and SHLVL under `bash -c` (5.1 lowers it to 0 for an exec'd last command, 5.2 does not). */
const VERSION_PATTERNS = [/\b\d+\.\d+\.\d+(\(\d+\)-release)?/g, /\bSHLVL=\d+/g];
const TOOL_MESSAGES = /command not found|invalid syntax|SyntaxError|not installed|No module named|illegal option|unrecognized option|invalid option|usage:/i;

/** A command word of the action (or gold) that asks the network, the clock, processes, the host or a version. */
const ASKS = {
  network: /(^|[\s|;&(`$"'])(dig|nslookup|host|ping|curl|wget|nc|ssh|traceroute|whois|ifconfig|ip addr|netstat|hostname -I|pip3? install|apt-get|apt)\b/,
  time: /(^|[\s|;&(`$"'])(date|uptime|w|cal|ncal|time)\b|\/proc\/(loadavg|uptime)|\bSECONDS\b|\bRANDOM\b|-mtime|-mmin|-newer/,
  processIds: /(^|[\s|;&(`$"'])(ps|pstree|pgrep|pidof|top|jobs|kill|pkill)\b|\$\$|\$PPID|\$BASHPID|\/proc\/(self|\d+)|\bHOSTNAME\b/,
  host: /(^|[\s|;&(`$"'])(uname|df|mount|free|nproc|lscpu|lsblk|findmnt|du|arch)\b|\/proc\/(cpuinfo|meminfo|version|mounts)/,
  versions: /--version\b|\bBASH_VERSION\b|(^|[\s|;&(`$"'])bind\b/,
};
/** What a failed network call prints: a sign on its own that the difference is the network. */
const NETWORK_FAILURE =
  /network unreachable|Network is unreachable|no servers could be reached|Temporary failure in name resolution|Could not resolve host|Name or service not known|connection timed out; no servers/i;
/** The sandbox keeps PID 1 (its agent) unreadable: a difference InterCode's containers did not have. */
const SANDBOX_DENIED = /'\/proc\/1\/[^']*': Permission denied/;

/** What the replay knows besides the two texts, for categorize. */
export interface CategoryContext {
  /** The action as it ran. */
  action?: string;
  /** The task's gold (bash: the command; a list joined). */
  gold?: string;
  /** What gold printed in the replay's score, when it was scored. */
  goldObservation?: string;
}

/**
 * Sorts a disagreeing turn into one cause. A reward that differs under the same observation is
 * "reward formula" unless gold itself asks the network, the clock or the processes (then its own
 * output moved the score: that cause). Otherwise, in order: the same lines in another order is
 * "order"; an action (or a printed failure) that asks the network is "network"; one that asks
 * processes, the clock, the host (kernel, mounts, the sandbox's isolation) or a tool's version is
 * that; texts equal once times are masked are "time", once ids (hex, a container's host name)
 * are masked too "process ids", once bash's version and SHLVL are "tool versions", as is a
 * tool's own complaint; a loop's text
 * (`Please try again`, `execute[`) or a stopped replay is "loop"; anything else is "environment
 * content" (different files, rows or data).
 */
export function categorize(
  recorded: string,
  replayed: string,
  observationAgrees: boolean,
  replayError?: string,
  context: CategoryContext = {},
): DisagreementCategory {
  if (replayError) return "loop";
  const action = context.action ?? "";
  const gold = context.gold ?? "";
  if (observationAgrees) {
    if (ASKS.network.test(gold) || NETWORK_FAILURE.test(context.goldObservation ?? "")) return "network";
    if (ASKS.processIds.test(gold)) return "process ids";
    if (ASKS.time.test(gold)) return "time";
    return "reward formula";
  }
  const a = normalizeObservation(unwrapRowList(recorded));
  const b = normalizeObservation(unwrapRowList(replayed));
  const lines = (x: string) =>
    x
      .split(/\n|(?<=\))(?=\()/)
      .sort()
      .join("\n");
  if (lines(a) === lines(b)) return "order";
  if (ASKS.network.test(action) || NETWORK_FAILURE.test(a) || NETWORK_FAILURE.test(b)) return "network";
  if (ASKS.processIds.test(action)) return "process ids";
  if (ASKS.time.test(action)) return "time";
  if (ASKS.host.test(action) || SANDBOX_DENIED.test(a) !== SANDBOX_DENIED.test(b)) return "host";
  if (ASKS.versions.test(action)) return "tool versions";
  const mask = (x: string, patterns: RegExp[]) => patterns.reduce((t, re) => t.replace(re, "#"), x);
  const same = (patterns: RegExp[]) => mask(a, patterns) === mask(b, patterns);
  if (same(TIME_PATTERNS)) return "time";
  if (same([...TIME_PATTERNS, ...ID_PATTERNS])) return "process ids";
  if (same([...TIME_PATTERNS, ...ID_PATTERNS, ...VERSION_PATTERNS])) return "tool versions";
  if (/Please try again\.?$|^execute\[/.test(a) || /Please try again\.?$/.test(b)) return "loop";
  // A query that failed on one engine and ran on the other: a different server version or mode.
  if (a.startsWith("Error executing query") !== b.startsWith("Error executing query")) return "tool versions";
  if (TOOL_MESSAGES.test(a) !== TOOL_MESSAGES.test(b) || (TOOL_MESSAGES.test(a) && TOOL_MESSAGES.test(b))) return "tool versions";
  return "environment content";
}

const NOT_A_TABLE = /^(select|information_schema|mysql|sys|performance_schema|dual|lateral|unnest)$/i;

/**
 * What a SQL log holds that the task's database lacks, or null: a table its query read (and its
 * database answered, not `Error executing query`) or its `SHOW TABLES` listed, that is not among
 * the task's tables, or a column its `DESCRIBE` of a table listed that the table lacks. Such a turn ran on another database than Spider's (part of InterCode's SQL
 * ReAct log queries `poker_players`, which the `poker_player` database does not have): no replay
 * can agree with it.
 */
export function sqlLogEnvironmentEvidence(task: Task, action: string, recorded: string): string | null {
  if (task.env !== "sql" || /^\s*Error executing query/.test(recorded)) return null;
  const known = new Set(Object.keys(task.tables).map((t) => t.toLowerCase()));
  if (known.size === 0) return null;
  const db = task.db ? `the task's database ${task.db}` : "the task's database";
  const ctes = new Set([...action.matchAll(/(?:\bWITH|,)\s+[`"]?(\w+)[`"]?\s+AS\s*\(/gi)].map((m) => m[1].toLowerCase()));
  for (const m of action.matchAll(/\b(?:FROM|JOIN|DESCRIBE|DESC|TABLE)\s+[`"]?([A-Za-z_]\w*)[`"]?(\s*\.)?/gi)) {
    const name = m[1];
    if (m[2] || NOT_A_TABLE.test(name) || ctes.has(name.toLowerCase()) || known.has(name.toLowerCase())) continue;
    return `table ${name}: the log's query read it and got rows, ${db} has no such table`;
  }
  // DESCRIBE t / SHOW COLUMNS FROM t on a table the database has: a column it listed that the table lacks.
  const described = action.match(/^\s*(?:DESCRIBE|DESC|SHOW\s+(?:FULL\s+)?COLUMNS\s+(?:FROM|IN))\s+[`"]?(\w+)[`"]?/i);
  const table = described && Object.keys(task.tables).find((t) => t.toLowerCase() === described[1].toLowerCase());
  if (table) {
    const columns = new Set(task.tables[table].map((c) => c.toLowerCase()));
    for (const m of recorded.matchAll(/\(\s*'([^']+)'/g)) {
      if (!columns.has(m[1].toLowerCase()))
        return `column ${table}.${m[1]}: the log's ${described![0].trim().split(/\s+/)[0].toUpperCase()} listed it, ${db} has no such column`;
    }
  }
  if (/^\s*SHOW\s+TABLES/i.test(action)) {
    for (const m of recorded.matchAll(/\(\s*'([^']+)'\s*,?\s*\)/g)) {
      if (!known.has(m[1].toLowerCase())) return `table ${m[1]}: the log's SHOW TABLES listed it, ${db} has no such table`;
    }
  }
  return null;
}

/** Who plays a replay's turns (the in-memory record keeps them only for the check). */
const REPLAYER: ActorRef = { actor: "human", source: "api" };

/**
 * Re-runs the recorded actions of an episode in a fresh environment (reset on `task`) with the
 * loop that recorded them, and compares each turn's observation and reward with the recording.
 * The replay is an episode like any other: an EpisodeSession (lib/episodes/session.ts) over `env`,
 * recorded in memory. The loop decides how an action reads (`execute[...]`, `cmd ...`, `blocked`),
 * which rewrites of an observation it made (profile rows, lib/env/fidelity.ts), and when a turn
 * was scored: a turn is scored with evaluate() when the recording has a reward for it (under
 * profile intercode that score has the side effects InterCode's had), a submit by submit. `env`
 * must have been created under `loop.profile`; it is closed at the end unless `keepOpen` (the
 * caller then replays the next episode in it, as InterCode's long-lived containers played a log's
 * tasks one after another).
 */
export async function checkEpisodeReplay({
  task,
  turns,
  finalReward,
  env,
  loop = { profile: "studio", policy: null, turnLimit: null },
  scoreEvery = false,
  keepOpen = false,
}: {
  task: Task;
  turns: RecordedTurn[];
  finalReward: number | null;
  env: Environment;
  loop?: ReplayLoop;
  /** Score every turn with evaluate() (the replay page's would-be rewards), not only those the recording scored. */
  scoreEvery?: boolean;
  /** Leave `env` open for the caller's next episode (the caller closes it). */
  keepOpen?: boolean;
}): Promise<EpisodeCheck> {
  const out: TurnCheck[] = [];
  let last: number | null = null;
  const rules = fidelityOf(task);
  // When the loop scored a turn (profile table, `scoredAt`): under `submit-only` a turn that is not
  // a submit was never scored, whatever its log holds there (InterCode's ReAct logged 0), so it is
  // neither scored nor compared; only the last turn is, for the episode's final reward.
  const submitOnly = scoredAt(loop.profile, loop.policy) === "submit-only";
  const multiStep = loop.policy === "react" || (loop.policy?.startsWith("plan-solve") ?? false);
  const format = {
    executeBrackets: multiStep && profileValue(loop.profile, "react.action-format") === "execute-brackets",
    cmdWrapper: rules.cmdWrapper(loop.profile),
  };
  const rewrite = rules.feedbackWording(
    loop.profile,
    loop.policy,
    turns.map((t) => t.observation),
  );
  // The categories read shell commands only (a SQL column named `date` asks no clock); a CTF flag is no command.
  const goldText = rules.goldCommand(task);
  const shellAction = (a: string) => (rules.shellActions ? a : "");
  const comparable = (x: string) => normalizeObservation(rules.comparable(x));
  let session: EpisodeSession | null = null;
  try {
    session = await EpisodeSession.open({
      task,
      recorder: memoryRecorder(),
      start: { player: { kind: "human", annotator: null }, turnLimit: turns.length + 1, mode: "play", feedback: "none" },
      environment: async () => (keepOpen ? borrowed(env) : env),
      storeAt: "open",
    });
    await session.ready();
    let done = false;
    for (const [i, t] of turns.entries()) {
      if (done) break;
      const parsed = parseLoggedAction(t.action, format);
      if (parsed.kind === "blocked") continue;
      let observation: string;
      let reward: number | null = null;
      let goldObservation: string | undefined;
      let columns: string[] | undefined;
      const isLast = i === turns.length - 1;
      const forcedSubmit =
        parsed.kind === "submit" &&
        isLast &&
        loop.policy === "react" &&
        loop.turnLimit !== null &&
        t.index >= loop.turnLimit &&
        profileValue(loop.profile, "react.forced-submit") === "appended-not-counted";
      if (parsed.kind === "submit") {
        // Typed as an action, as the loop sent it: the environment's own submit observation.
        const { step } = await session.act(parsed.arg ? `submit ${parsed.arg}` : "submit", REPLAYER);
        const s = step.submitted ?? (await session.submit(parsed.arg || undefined)).result;
        observation = step.submitted ? step.observation : s.agentObservation;
        reward = s.reward;
        goldObservation = s.goldObservation;
        done = true;
      } else {
        const scoresTurn = scoreEvery || (t.reward !== null && !submitOnly) || (isLast && rules.replayScoresLastTurn(loop.profile));
        const { turn, step } = await session.act(parsed.code, REPLAYER, {
          score: async (e, step) => {
            if (step.submitted || !scoresTurn) return { reward: null };
            const ev = await e.evaluate();
            goldObservation = ev.goldObservation;
            return { reward: ev.reward, observation: (rewrite && rules.rewrittenObservation(rewrite, ev, task)) ?? undefined };
          },
        });
        observation = turn.observation;
        reward = turn.reward;
        columns = step.columns;
        if (step.submitted) {
          reward = step.submitted.reward;
          goldObservation = step.submitted.goldObservation;
          done = true;
        }
      }
      if (reward !== null) last = reward;
      const observationAgrees = comparable(observation) === comparable(t.observation);
      const scored = !submitOnly || parsed.kind === "submit" || (reward !== null && done);
      const rewardAgrees = t.reward === null || reward === null || !scored ? null : rewardsAgree(t.reward, reward);
      const evidence = observationAgrees || parsed.kind !== "run" ? null : sqlLogEnvironmentEvidence(task, parsed.code, t.observation);
      out.push({
        index: t.index,
        ...(parsed.kind === "run" && parsed.code !== t.action ? { ranAction: parsed.code } : {}),
        ...(forcedSubmit ? { forcedSubmit: true } : {}),
        ...(!observationAgrees || rewardAgrees === false
          ? evidence
            ? { category: "the log's environment differed" as const, evidence }
            : {
                category: categorize(t.observation, observation, observationAgrees, undefined, {
                  action: shellAction(parsed.kind === "run" ? parsed.code : t.action),
                  gold: goldText,
                  goldObservation,
                }),
              }
          : {}),
        recordedObservation: t.observation,
        observationAgrees,
        rewardAgrees,
        recordedReward: t.reward,
        replayedReward: reward,
        replayedObservation: observation,
        ...(columns ? { columns } : {}),
      });
    }
    return { turns: out, finalRewardAgrees: finalReward === null || last === null ? null : rewardsAgree(finalReward, last), replayedFinalReward: last };
  } catch (err) {
    return { turns: out, finalRewardAgrees: null, replayedFinalReward: last, error: (err as Error).message };
  } finally {
    if (session) await session.close();
    else if (!keepOpen) await env.close().catch(() => {});
  }
}

/** Shares of agreeing turns over many checked episodes (fractions; null when nothing to compare). */
export function summarizeChecks(checks: EpisodeCheck[]): {
  episodes: number;
  turns: number;
  observationAgree: number | null;
  rewardAgree: number | null;
  rewardCompared: number;
  errors: number;
} {
  let turns = 0;
  let obs = 0;
  let rc = 0;
  let ra = 0;
  for (const c of checks) {
    for (const t of c.turns) {
      if (t.forcedSubmit) continue;
      turns++;
      if (t.observationAgrees) obs++;
      if (t.rewardAgrees !== null) {
        rc++;
        if (t.rewardAgrees) ra++;
      }
    }
    // Logs without per-turn rewards (InterCode's environment logs) still have the episode's reward.
    if (c.turns.every((t) => t.rewardAgrees === null || t.forcedSubmit) && c.finalRewardAgrees !== null) {
      rc++;
      if (c.finalRewardAgrees) ra++;
    }
  }
  return {
    episodes: checks.length,
    turns,
    observationAgree: turns ? obs / turns : null,
    rewardAgree: rc ? ra / rc : null,
    rewardCompared: rc,
    errors: checks.filter((c) => c.error).length,
  };
}
