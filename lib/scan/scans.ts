import "server-only";
import { listMachineTagsBySource, listPersonTagsByEpisodeIds, type MachineTag } from "@/lib/db/annotations";
import { agreement, type Agreement } from "./agreement";
import { SCAN_SYSTEM_PROMPT } from "./scan-prompt";

/** A stored scan, read back from its machine tags (source scanner, author = the scan's id). */
export interface ScanSummary {
  scanId: string;
  /** The tag of a yes. */
  tag: string;
  question: string;
  model: string;
  prompt: string;
  at: string;
  episodes: number;
  yes: number;
  no: number;
  errors: number;
  /** Against people, on the episodes of this scan that a person tagged; null when none was. */
  agreement: Agreement | null;
}

/** One episode's answer, with what people said when they tagged the episode. */
export interface ScanAnswerView {
  episodeId: string;
  answer: "yes" | "no" | "error";
  text: string | null;
  /** Whether people gave the scan's tag: null when no person tagged the episode at all. */
  person: boolean | null;
}

export interface ScanDetail extends ScanSummary {
  answers: ScanAnswerView[];
}

/** The scan's base tag and the answer an answer tag says (`tag`, `tag:no`, `tag:error`). */
function splitAnswer(name: string): { tag: string; answer: "yes" | "no" | "error" } {
  const m = /^(.*):(no|error)$/.exec(name);
  return m ? { tag: m[1]!, answer: m[2] as "no" | "error" } : { tag: name, answer: "yes" };
}

function questionOf(prompt: string): string {
  const head = `${SCAN_SYSTEM_PROMPT}\n\nQuestion: `;
  return prompt.startsWith(head) ? prompt.slice(head.length) : prompt;
}

/**
 * Builds a scan's summary and answers from its tags, checked against people: an episode a person
 * tagged (any accepted tag of theirs) counts as judged, positive when one of their tags is the
 * scan's tag. Episodes no person tagged, and the scanner's errors, are left out of the agreement.
 */
async function buildScans(tags: MachineTag[]): Promise<ScanDetail[]> {
  const byScan = new Map<string, MachineTag[]>();
  for (const t of tags) {
    const list = byScan.get(t.author) ?? [];
    list.push(t);
    byScan.set(t.author, list);
  }
  const person = await listPersonTagsByEpisodeIds({ episodeIds: [...new Set(tags.map((t) => t.episodeId))] });
  const out: ScanDetail[] = [];
  for (const [scanId, list] of byScan) {
    const first = list[0]!;
    const prov = first.provenance && "scanId" in first.provenance ? first.provenance : null;
    const tag = splitAnswer(first.tag).tag;
    const answers: ScanAnswerView[] = list.map((t) => {
      const mine = person.get(t.episodeId);
      return { episodeId: t.episodeId, answer: splitAnswer(t.tag).answer, text: t.text, person: mine ? mine.has(tag) : null };
    });
    const judged = answers.filter((a) => a.answer !== "error" && a.person !== null).map((a) => ({ scanner: a.answer === "yes", person: a.person! }));
    out.push({
      scanId,
      tag,
      question: questionOf(prov?.prompt ?? ""),
      model: prov?.model ?? "",
      prompt: prov?.prompt ?? "",
      at: prov?.at ?? new Date(first.createdAt).toISOString(),
      episodes: answers.length,
      yes: answers.filter((a) => a.answer === "yes").length,
      no: answers.filter((a) => a.answer === "no").length,
      errors: answers.filter((a) => a.answer === "error").length,
      agreement: judged.length ? agreement(judged) : null,
      answers,
    });
  }
  return out.sort((a, b) => b.at.localeCompare(a.at) || b.scanId.localeCompare(a.scanId));
}

/** Every stored scan, newest first, with its counts and its agreement with people. */
export async function listScans(): Promise<ScanSummary[]> {
  return (await buildScans(await listMachineTagsBySource({ source: "scanner" }))).map(({ answers: _answers, ...s }) => s);
}

/** One stored scan with each episode's answer, or null when it left no tag. */
export async function getScanById({ scanId }: { scanId: string }): Promise<ScanDetail | null> {
  return (await buildScans(await listMachineTagsBySource({ source: "scanner", author: scanId })))[0] ?? null;
}
