import "server-only";
import { callModel, type RetryPolicy } from "@/lib/agent/call-model";
import type { ResolvedModel } from "@/lib/agent/models";
import { writeMachineTags, type ScannerProvenance } from "@/lib/db/annotations";
import type { EpisodeFilters } from "@/lib/db/episode-filters";
import { getEpisodeById, listEpisodes } from "@/lib/db/episodes";
import { uuidv7 } from "@/lib/db/ids";
import { BadInputError, ProviderError } from "@/lib/errors";
import { listSealedTaskKeys, sealKey } from "@/lib/studies/baseline-seal";
import { SCAN_DEFAULT_CONCURRENCY, SCAN_DEFAULT_EPISODES, SCAN_MAX_CONCURRENCY, SCAN_MAX_EPISODES } from "./scan-options";
import { answerTags, episodeMessage, parseAnswer, scanPrompt, SCAN_SYSTEM_PROMPT } from "./scan-prompt";

/** One episode's answer. */
export interface ScanAnswer {
  episodeId: string;
  answer: "yes" | "no" | "error";
  /** The model's evidence, or what went wrong. */
  text: string;
}

export interface ScanProgress {
  scanId: string;
  total: number;
  done: number;
  yes: number;
  no: number;
  errors: number;
  /** Matching episodes left out because their task is sealed (lib/studies/baseline-seal.ts). */
  sealed: number;
}

export interface ScanInput {
  question: string;
  /** The tag of a yes (lib/scan/scan-prompt.ts answerTags). */
  tag: string;
  model: ResolvedModel;
  filters: EpisodeFilters;
  limit?: number;
  concurrency?: number;
  onProgress?: (p: ScanProgress) => void;
  signal?: AbortSignal;
  retry?: Partial<RetryPolicy>;
  /** The scan's id, when the caller named it already (the page shows it before the first answer). */
  scanId?: string;
}

export interface ScanResult extends ScanProgress {
  tag: string;
  question: string;
  model: string;
  prompt: string;
  at: string;
  answers: ScanAnswer[];
}

/**
 * Runs a scanner: asks `model` the question about each episode the filters match (the newest
 * `limit`), `concurrency` calls at a time, through the model layer (callModel: its retries, its
 * redaction of keys). Each answer is stored as it comes as a machine tag of source scanner on the
 * episode (`tag`, `tag:no`, or `tag:error` with the provider's message when the call failed or the
 * reply said neither yes nor no), with provenance {scanId, model, prompt, at}. A failing call is
 * that episode's error, never the scan's; an abort stops the scan between episodes.
 */
export async function runScan(input: ScanInput): Promise<ScanResult> {
  const limit = input.limit ?? SCAN_DEFAULT_EPISODES;
  const concurrency = input.concurrency ?? SCAN_DEFAULT_CONCURRENCY;
  if (!Number.isInteger(limit) || limit < 1 || limit > SCAN_MAX_EPISODES) throw new BadInputError(`must be 1..${SCAN_MAX_EPISODES}`, "limit");
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > SCAN_MAX_CONCURRENCY)
    throw new BadInputError(`must be 1..${SCAN_MAX_CONCURRENCY}`, "concurrency");
  const scanId = input.scanId ?? uuidv7();
  const at = new Date().toISOString();
  const prompt = scanPrompt(input.question);
  const provenance: ScannerProvenance = { scanId, model: input.model.info.id, prompt, at };
  const tags = answerTags(input.tag);
  const listed = (await listEpisodes({ filters: input.filters, pageSize: limit, sort: { key: "startedAt", dir: "desc" } })).rows;
  // A sealed task's outcome is hidden from everyone while its study runs: its episodes are not shown to a model either.
  const sealed = await listSealedTaskKeys();
  const rows = listed.filter((e) => !sealed.has(sealKey(e)));
  const progress: ScanProgress = { scanId, total: rows.length, done: 0, yes: 0, no: 0, errors: 0, sealed: listed.length - rows.length };
  const answers: ScanAnswer[] = [];
  input.onProgress?.({ ...progress });

  /** The episode's answer; null when it was deleted meanwhile (nothing to tag) or the scan was aborted. */
  const ask = async (episodeId: string): Promise<ScanAnswer | null> => {
    const e = await getEpisodeById({ id: episodeId });
    if (!e) return null;
    try {
      const reply = await callModel(input.model, {
        system: SCAN_SYSTEM_PROMPT,
        messages: [{ role: "user", content: episodeMessage(input.question, e) }],
        signal: input.signal,
        retry: input.retry,
      });
      const parsed = parseAnswer(reply.text);
      if (!parsed) return { episodeId, answer: "error", text: `the reply said neither yes nor no: ${reply.text.trim().slice(0, 300)}` };
      return { episodeId, answer: parsed.answer, text: parsed.reason };
    } catch (err) {
      if (input.signal?.aborted) return null;
      if (err instanceof ProviderError) return { episodeId, answer: "error", text: err.message };
      throw err;
    }
  };

  const store = async (a: ScanAnswer) => {
    await writeMachineTags({
      source: "scanner",
      authors: [scanId],
      episodeIds: [a.episodeId],
      tags: [{ episodeId: a.episodeId, turnIndex: null, tag: tags[a.answer], text: a.text || null, author: scanId, provenance }],
    });
  };

  let next = 0;
  const worker = async () => {
    while (next < rows.length && !input.signal?.aborted) {
      const { id } = rows[next++]!;
      const a = await ask(id);
      if (input.signal?.aborted) return;
      if (!a) {
        progress.total--;
        continue;
      }
      await store(a);
      answers.push(a);
      progress.done++;
      progress[a.answer === "error" ? "errors" : a.answer]++;
      input.onProgress?.({ ...progress });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, rows.length) }, worker));
  return { ...progress, tag: input.tag, question: input.question, model: input.model.info.id, prompt, at, answers };
}
