/**
 * Resource limits for code run in a sandbox. Every value is a named constant; a run may
 * override any of them (`resolveLimits`), and the environment variables below override the
 * defaults for a whole process.
 */
import { config } from "@/lib/config";

export interface Limits {
  /** Wall time for one action (InterCode's value: 10 s). */
  timeoutMs: number;
  /** Bytes of output kept per action; the rest is dropped and the observation says so. */
  outputBytes: number;
  /** Address-space / memory cap for the sandbox's processes. */
  memoryBytes: number;
  /** Maximum number of processes (fork bombs stop here). */
  processes: number;
  /** Largest file a process may write. */
  fileBytes: number;
  /** Size of the writable scratch space (tmpfs) where the backend can bound it. */
  diskBytes: number;
}

export const ACTION_TIMEOUT_MS = 10_000;
export const OUTPUT_LIMIT_BYTES = 64 * 1024;
export const MEMORY_LIMIT_BYTES = 512 * 1024 * 1024;
export const PROCESS_LIMIT = 256;
export const FILE_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
export const DISK_LIMIT_BYTES = 256 * 1024 * 1024;

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  timeoutMs: ACTION_TIMEOUT_MS,
  outputBytes: OUTPUT_LIMIT_BYTES,
  memoryBytes: MEMORY_LIMIT_BYTES,
  processes: PROCESS_LIMIT,
  fileBytes: FILE_SIZE_LIMIT_BYTES,
  diskBytes: DISK_LIMIT_BYTES,
});

/** Defaults, then process-wide overrides (IC_TIMEOUT_MS, IC_OUTPUT_BYTES, IC_MEMORY_BYTES, IC_PROCESS_LIMIT, IC_FILE_BYTES, IC_DISK_BYTES: lib/config.ts), then the run's own overrides. */
export function resolveLimits(overrides: Partial<Limits> = {}, processWide: Partial<Limits> = config().limits): Limits {
  const limits: Limits = { ...DEFAULT_LIMITS, ...processWide };
  for (const [key, value] of Object.entries(overrides) as [keyof Limits, number | undefined][]) {
    if (value !== undefined) limits[key] = value;
  }
  return limits;
}

/** The note appended to an observation whose output was cut at the cap. */
export function truncationNote(limitBytes: number): string {
  return `\n[output truncated: only the first ${Math.round(limitBytes / 1024)} KiB were kept]`;
}

/** The note an observation carries when its action was stopped at the time limit. */
export function timeoutNote(limitMs: number): string {
  return `\n[action timed out after ${limitMs / 1000} s and was stopped]`;
}
