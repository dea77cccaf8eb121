import { z } from "zod";
import { LIST_SORTS, type EpisodeFilters } from "@/lib/db/episode-filters";

/** A sort name of the episode list's URL (LIST_SORTS, from the one table of sorts in lib/db/episode-filters.ts). */
export type ListSort = keyof typeof LIST_SORTS;

const one = z.preprocess((v) => (Array.isArray(v) ? v[0] : v), z.string().optional());
const text = one.transform((v) => (v?.trim() ? v.trim() : undefined));
const csv = text.transform((v) =>
  v
    ? v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined,
);
const num = text.transform((v) => (v !== undefined && Number.isFinite(Number(v)) ? Number(v) : undefined));
const int = text.transform((v) => (v !== undefined && Number.isInteger(Number(v)) && Number(v) >= 0 ? Number(v) : undefined));
const date = text.transform((v) => {
  if (!v) return undefined;
  const t = Date.parse(v);
  return Number.isFinite(t) ? v : undefined;
});

/**
 * The episode list's whole view as URL search parameters (so a link reproduces it). Unknown or
 * malformed values fall back to their default rather than failing the page.
 */
export const listParamsSchema = z.object({
  q: text,
  env: csv,
  dataset: csv,
  kind: csv,
  model: csv,
  policy: csv,
  annotator: csv,
  status: csv,
  hardness: csv,
  task: csv,
  tag: text,
  /** An import flag (lib/trajectories/flags.ts). */
  flag: text,
  run: text,
  solved: text.pipe(z.enum(["yes", "no"]).optional()).catch(undefined),
  rmin: num,
  rmax: num,
  tmin: int,
  tmax: int,
  imin: int,
  limit: int,
  from: date,
  to: date,
  sort: text.pipe(z.enum(Object.keys(LIST_SORTS) as [ListSort, ...ListSort[]]).optional()).catch(undefined),
  dir: text.pipe(z.enum(["asc", "desc"]).optional()).catch(undefined),
  page: int.transform((v) => (v && v >= 1 ? v : undefined)),
  /** `exact`: count every match; else past COUNT_EXACT_UP_TO the total is an estimate. */
  count: text.pipe(z.enum(["exact"]).optional()).catch(undefined),
});
export type ListParams = z.infer<typeof listParamsSchema>;

/** Parses Next's searchParams (or a URLSearchParams turned into an object). */
export function parseListParams(raw: Record<string, string | string[] | undefined>): ListParams {
  return listParamsSchema.parse(raw);
}

/** Parses a URLSearchParams. */
export function listParamsFromUrl(sp: URLSearchParams): ListParams {
  const o: Record<string, string> = {};
  for (const [k, v] of sp) o[k] = v;
  return parseListParams(o);
}

/** The store filters a view asks for. */
export function toEpisodeFilters(p: ListParams): EpisodeFilters & { invalidMin?: number } {
  const f: EpisodeFilters & { invalidMin?: number } = {};
  if (p.env) f.environment = p.env;
  if (p.dataset) f.dataset = p.dataset;
  if (p.kind) f.playerKind = p.kind;
  if (p.model) f.model = p.model;
  if (p.policy) f.policy = p.policy;
  if (p.annotator) f.annotator = p.annotator;
  if (p.status) f.status = p.status;
  if (p.hardness) f.hardness = p.hardness;
  if (p.task) f.taskId = p.task;
  if (p.tag) f.tag = p.tag;
  if (p.flag) f.flag = p.flag;
  if (p.run) f.runId = p.run;
  if (p.solved) f.success = p.solved === "yes";
  if (p.rmin !== undefined) f.rewardMin = p.rmin;
  if (p.rmax !== undefined) f.rewardMax = p.rmax;
  if (p.tmin !== undefined) f.turnsMin = p.tmin;
  if (p.tmax !== undefined) f.turnsMax = p.tmax;
  if (p.limit !== undefined) f.turnLimit = p.limit;
  if (p.from) f.startedAfter = new Date(p.from);
  if (p.to) f.startedBefore = new Date(p.to);
  if (p.q) f.search = p.q;
  if (p.imin !== undefined) f.invalidMin = p.imin;
  return f;
}

/** Writes a view back to a query string (without empty values), for links and router pushes. */
export function listQuery(p: Partial<Record<keyof ListParams, unknown>>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(p)) {
    if (v === undefined || v === null || v === "") continue;
    q.set(k, Array.isArray(v) ? v.join(",") : String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}
