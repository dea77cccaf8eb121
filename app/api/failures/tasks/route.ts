import { NextResponse, type NextRequest } from "next/server";
import { listTaskSuspects, taskSuspectsCsv } from "@/lib/failures/task-qa";
import { parseInput, respond } from "@/lib/http/respond";
import { toEpisodeFilters } from "@/lib/viewer/list-params";
import { taskQaQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

/** GET /api/failures/tasks: the suspect tasks of the filtered episodes, as JSON ({suspects, counts}) or `?format=csv`, for the dataset's maintainers. */
export function GET(req: NextRequest) {
  return respond(async () => {
    const q = parseInput(taskQaQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query parameter");
    const result = await listTaskSuspects({ filters: toEpisodeFilters(q) });
    if (q.format === "csv") {
      return new Response(taskSuspectsCsv(result.suspects), {
        headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="task-qa.csv"` },
      });
    }
    return new NextResponse(JSON.stringify(result, null, 2), {
      headers: { "content-type": "application/json; charset=utf-8", "content-disposition": `attachment; filename="task-qa.json"` },
    });
  });
}
