import { NextResponse, type NextRequest } from "next/server";
import { chartCsv, computeViewerStats } from "@/lib/stats/aggregates";
import { parseInput, respond } from "@/lib/http/respond";
import { toEpisodeFilters } from "@/lib/viewer/list-params";
import { statsQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

/** GET /api/stats: aggregates of the filtered episodes (JSON, bounded: see computeViewerStats), or `?csv=<chart>` for one chart as CSV (every group and k). */
export function GET(req: NextRequest) {
  return respond(async () => {
    const q = parseInput(statsQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query parameter");
    const stats = await computeViewerStats({ filters: toEpisodeFilters(q), groupBy: q.group, full: Boolean(q.csv) });
    if (q.csv) {
      return new Response(chartCsv(stats, q.csv), {
        headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${q.csv}.csv"` },
      });
    }
    return NextResponse.json(stats);
  });
}
