import Link from "next/link";
import type { Metadata } from "next";
import { EpisodeFilters } from "@/components/episodes/episode-filters";
import { EpisodeTable } from "@/components/episodes/episode-table";
import { ImportExport } from "@/components/episodes/import-export";
import { listViewerEpisodes } from "@/lib/db/episodes";
import { listEpisodeFacets, listUsedTags } from "@/lib/db/viewer-queries";
import { COUNT_EXACT_UP_TO, LIST_SORTS } from "@/lib/db/episode-filters";
import { parseListParams, toEpisodeFilters } from "@/lib/viewer/list-params";
import { BASE_TAXONOMY } from "@/lib/failures/suggest-tags";
import { redactSealedRows } from "@/lib/studies/baseline-seal";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Episodes · InterCode Studio" };

const PAGE_SIZE = 50;

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/** The episode list: filters, full-text search, sort and paging all in the URL. */
export default async function EpisodesPage({ searchParams }: Props) {
  const raw = await searchParams;
  const p = parseListParams(raw);
  const sort = p.sort ?? "date";
  const dir = p.dir ?? "desc";
  const page = await listViewerEpisodes({
    filters: toEpisodeFilters(p),
    sort: LIST_SORTS[sort],
    dir,
    page: p.page ?? 1,
    pageSize: PAGE_SIZE,
    exactCount: p.count === "exact",
  });
  const facets = await listEpisodeFacets();
  const tags = [...new Set([...BASE_TAXONOMY.map((t) => t.tag), ...(await listUsedTags()).map((t) => t.tag)])];
  const query: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (typeof v === "string" && v !== "") query[k] = v;
  const qs = (over: Record<string, string | undefined>) => {
    const q = new URLSearchParams(query);
    for (const [k, v] of Object.entries(over)) {
      if (v === undefined) q.delete(k);
      else q.set(k, v);
    }
    return q.size ? `?${q}` : "";
  };
  const filterOnly = qs({ page: undefined, sort: undefined, dir: undefined });
  const pages = Math.max(1, Math.ceil(page.total / PAGE_SIZE));
  return (
    <div className="space-y-3 p-4">
      <div className="flex items-baseline gap-4">
        <h1 className="text-lg font-semibold">Episodes</h1>
        <span className="text-sm text-zinc-400" data-testid="total">
          {page.totalExact ? "" : "about "}
          {page.total.toLocaleString("en")} episodes
        </span>
        {page.totalExact ? null : (
          <span className="text-xs text-zinc-400" data-testid="estimated">
            (estimated from a sample: more than {COUNT_EXACT_UP_TO.toLocaleString("en")} match){" "}
            <Link className="text-sky-400 underline" href={`/episodes${qs({ count: "exact" })}`} data-testid="count-exact">
              count exactly
            </Link>
          </span>
        )}
        <Link className="text-xs text-sky-400 underline" href={`/episodes/stats${filterOnly}`} data-testid="stats-link">
          aggregates of this set
        </Link>
      </div>
      <EpisodeFilters query={query} facets={facets} tags={tags} />
      <ImportExport query={filterOnly} />
      <EpisodeTable rows={await redactSealedRows(page.rows)} query={query} sort={sort} dir={dir} />
      <nav className="flex items-center gap-3 text-xs text-zinc-400" data-testid="pager">
        {page.page > 1 ? (
          <Link href={`/episodes${qs({ page: String(page.page - 1) })}`} className="text-sky-400">
            ← previous
          </Link>
        ) : (
          <span>← previous</span>
        )}
        <span>
          page {page.page} of {page.totalExact ? "" : "about "}
          {pages.toLocaleString("en")}
        </span>
        {page.page < pages ? (
          <Link href={`/episodes${qs({ page: String(page.page + 1) })}`} className="text-sky-400" data-testid="next-page">
            next →
          </Link>
        ) : (
          <span>next →</span>
        )}
      </nav>
    </div>
  );
}
