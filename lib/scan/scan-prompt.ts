import { z } from "zod";

/**
 * A scanner: a question in words put to a model about each episode of a filtered set. Its answers
 * are machine tags (source scanner): `tag` where the model said yes, `tag:no` where it said no,
 * `tag:error` where the call failed or the reply had no yes or no (lib/scan/run-scan.ts).
 */
export const scanTagSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_.-]{0,57}$/, { message: "a scanner's tag is 1-58 characters of a-z, 0-9, _ . - (starting with a letter or digit)" });

export const scanQuestionSchema = z
  .string()
  .trim()
  .min(3, { message: "ask a question of at least 3 characters" })
  .max(2000, { message: "a question is at most 2000 characters" });

/** The answer tags of a scanner tag: yes is the tag itself. */
export function answerTags(tag: string): { yes: string; no: string; error: string } {
  return { yes: tag, no: `${tag}:no`, error: `${tag}:error` };
}

/** What an answer tag says, or null when it is not one of `tag`'s. */
export function answerOf(tag: string, name: string): "yes" | "no" | "error" | null {
  const t = answerTags(tag);
  return name === t.yes ? "yes" : name === t.no ? "no" : name === t.error ? "error" : null;
}

/** The part of an episode a scanner reads. */
export interface ScannedEpisode {
  environment: string;
  dataset: string;
  taskId: string;
  query: string;
  status: string;
  reward: number | null;
  turns: Array<{ index: number; action: string; observation: string; thought?: string | null }>;
}

/** Each action and observation is cut to this many characters in the prompt (the middle elided), so a long log fits a context window. */
export const SCAN_FIELD_CHARS = 2000;
/** At most this many turns go into the prompt (the first and last halves when there are more). */
export const SCAN_MAX_TURNS = 40;

const cut = (s: string, n = SCAN_FIELD_CHARS) =>
  s.length <= n ? s : `${s.slice(0, n / 2)}\n[... ${s.length - n} characters left out ...]\n${s.slice(-n / 2)}`;

/** The system prompt of every scanner call (stored with each answer as its provenance's prompt, with the question). */
export const SCAN_SYSTEM_PROMPT = [
  "You review one episode of an interactive coding benchmark: a task, then the agent's actions and what running each printed.",
  "Answer the reviewer's question about this episode.",
  "Reply with YES or NO on the first line, then one or two sentences of evidence citing turn numbers.",
].join(" ");

/** The prompt a scan is known by: the system prompt and the question (each episode's transcript follows the question). */
export function scanPrompt(question: string): string {
  return `${SCAN_SYSTEM_PROMPT}\n\nQuestion: ${question}`;
}

/** The user message of one call: the question, then the episode. */
export function episodeMessage(question: string, e: ScannedEpisode): string {
  const turns = e.turns.length > SCAN_MAX_TURNS ? [...e.turns.slice(0, SCAN_MAX_TURNS / 2), null, ...e.turns.slice(-SCAN_MAX_TURNS / 2)] : e.turns;
  const lines = [
    `Question: ${question}`,
    "",
    `Environment: ${e.environment} (dataset ${e.dataset}, task ${e.taskId})`,
    `Task: ${cut(e.query)}`,
    `Outcome: ${e.status}${e.reward === null ? "" : `, reward ${e.reward}`}`,
    "",
  ];
  for (const t of turns) {
    if (!t) {
      lines.push(`[... ${e.turns.length - SCAN_MAX_TURNS} turns left out ...]`, "");
      continue;
    }
    lines.push(`Turn ${t.index + 1}`);
    if (t.thought) lines.push(`Thought: ${cut(t.thought)}`);
    lines.push(`Action: ${cut(t.action)}`, `Observation: ${cut(t.observation)}`, "");
  }
  lines.push("Answer YES or NO on the first line, then the evidence.");
  return lines.join("\n");
}

/**
 * Reads a reply: the first word that is yes or no (any case, markdown around it allowed) decides;
 * the rest is the evidence. Null when the reply has neither before anything else is said.
 */
export function parseAnswer(reply: string): { answer: "yes" | "no"; reason: string } | null {
  const m = /^[\s*_#>`"'-]*(?:answer\s*:\s*)?[*_`"']*(yes|no)\b[*_`"'.:,!]*\s*(.*)$/is.exec(reply);
  if (!m) return null;
  return { answer: m[1]!.toLowerCase() as "yes" | "no", reason: m[2]!.trim().slice(0, 1000) };
}
