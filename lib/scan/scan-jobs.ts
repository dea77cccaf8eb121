import "server-only";
import type { z } from "zod";
import { resolveModel } from "@/lib/agent/models";
import { uuidv7 } from "@/lib/db/ids";
import { asStudioError } from "@/lib/errors";
import { filtersFromSpec } from "@/lib/trajectories/cli-filters";
import { runScan, type ScanProgress } from "./run-scan";
import type { startScanSchema } from "./scan-options";

/** A scan running (or just ended) in this server, as the scans page shows it. */
export interface ScanJobView extends ScanProgress {
  tag: string;
  question: string;
  model: string;
  startedAt: number;
  finished: boolean;
  /** Why the scan as a whole stopped (one episode's failure is that episode's error tag, not this). */
  error: string | null;
}

type Registry = { jobs: Map<string, ScanJobView> };
const registry: Registry = ((globalThis as Record<string, unknown>).__icStudioScans ??= { jobs: new Map() }) as Registry;

/**
 * Starts a scan in the server and returns its id at once; the answers are stored as they come
 * (lib/scan/run-scan.ts) and the progress is kept here for the page. Everything is checked before
 * it starts: the filter (naming the bad key), the model (unknown, no key).
 */
export function startScan(input: z.output<typeof startScanSchema>): { scanId: string } {
  const filters = input.filter.trim() ? filtersFromSpec(input.filter, "filter") : {};
  const model = resolveModel(input.model);
  const scanId = uuidv7();
  const job: ScanJobView = {
    scanId,
    total: 0,
    done: 0,
    yes: 0,
    no: 0,
    errors: 0,
    sealed: 0,
    tag: input.tag,
    question: input.question,
    model: model.info.id,
    startedAt: Date.now(),
    finished: false,
    error: null,
  };
  registry.jobs.set(scanId, job);
  void runScan({
    question: input.question,
    tag: input.tag,
    model,
    filters,
    limit: input.limit,
    concurrency: input.concurrency,
    scanId,
    onProgress: (p) => Object.assign(job, p),
  })
    .catch((err) => {
      job.error = asStudioError(err).message;
    })
    .finally(() => {
      job.finished = true;
    });
  return { scanId };
}

/** The scans started in this server since it started, newest first. */
export function listScanJobs(): ScanJobView[] {
  return [...registry.jobs.values()].sort((a, b) => b.startedAt - a.startedAt).map((j) => ({ ...j }));
}
