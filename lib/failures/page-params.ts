import { z } from "zod";
import { listParamsSchema, toEpisodeFilters } from "@/lib/viewer/list-params";
import type { FailureGroupBy } from "./view-types";

/**
 * The failure pages' URL: the episode list's filters (so a link from the list or the stats keeps
 * them) and the grouping. Unknown or malformed values fall back to their defaults, as the list's do.
 */
export const failuresParamsSchema = z.record(z.string(), z.union([z.string(), z.array(z.string())]).optional()).transform((raw) => {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const g = one(raw.groupBy);
  const groupBy: FailureGroupBy = g === "cluster" ? "cluster" : "detector";
  return { groupBy, filters: toEpisodeFilters(listParamsSchema.parse(raw)), raw };
});

/** The filters of a failure page's URL as a query (without the paging and sorting of the list, and without the grouping). */
export function filtersQuery(raw: Record<string, string | string[] | undefined>): URLSearchParams {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(raw)) {
    const s = Array.isArray(v) ? v[0] : v;
    if (typeof s === "string" && s !== "" && !["page", "sort", "dir", "groupBy"].includes(k)) q.set(k, s);
  }
  return q;
}

/** A failure page's link: `path` with the filters `q`, overridden by `set`. */
export function failuresHref(path: string, q: URLSearchParams, set: Record<string, string | undefined>): string {
  const out = new URLSearchParams(q);
  for (const [k, v] of Object.entries(set)) {
    if (v === undefined || v === "") continue;
    out.set(k, v);
  }
  return out.size ? `${path}?${out}` : path;
}
