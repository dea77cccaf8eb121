import { NextResponse, type NextRequest } from "next/server";
import { listViewerEpisodes } from "@/lib/db/episodes";
import { respond, parseInput } from "@/lib/http/respond";
import { LIST_SORTS } from "@/lib/db/episode-filters";
import { toEpisodeFilters } from "@/lib/viewer/list-params";
import { episodesQuerySchema } from "./schema";
import { redactSealedRows } from "@/lib/studies/baseline-seal";

export const dynamic = "force-dynamic";

/** GET /api/episodes: one page of the filtered, searched and sorted episode list; `total` is estimated past COUNT_EXACT_UP_TO matches (`totalExact: false`) unless `?count=exact`. */
export function GET(req: NextRequest) {
  return respond(async () => {
    const q = parseInput(episodesQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query parameter");
    const page = await listViewerEpisodes({
      filters: toEpisodeFilters(q),
      sort: LIST_SORTS[q.sort ?? "date"],
      dir: q.dir ?? "desc",
      page: q.page ?? 1,
      pageSize: q.size ?? 50,
      exactCount: q.count === "exact",
    });
    return NextResponse.json({ ...page, rows: await redactSealedRows(page.rows) });
  });
}
