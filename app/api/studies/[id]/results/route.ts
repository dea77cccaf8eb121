import type { NextRequest } from "next/server";
import { ConflictError, NotFoundError } from "@/lib/errors";
import { parseInput, respond } from "@/lib/http/respond";
import { outcomesVisible } from "@/lib/studies/seal-reveal";
import { buildStudyResults, resultRecords } from "@/lib/studies/study-results";
import { toCsv } from "@/lib/viewer/csv";
import { studyResultsQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

const COLUMNS = ["study", "studyId", "annotator", "position", "taskId", "state", "reward", "solved", "activeMs", "wallMs", "skipReason", "episodeId"];

/**
 * GET /api/studies/<id>/results?format=csv|jsonl: one record per participant and task. An open
 * study's outcomes are sealed: 409 until the owner's logged reveal (or the study's close).
 */
export function GET(req: NextRequest, { params }: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const id = decodeURIComponent((await params).id);
    const { format } = parseInput(studyResultsQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query parameter");
    const r = await buildStudyResults(id);
    if (!r) throw new NotFoundError(`study ${id}`);
    if (!(await outcomesVisible(id)).visible)
      throw new ConflictError(
        `study ${r.study.name} is open and its outcomes are sealed: reveal them on its results page (the reveal is logged) or close it first`,
      );
    const records = resultRecords(r);
    const name = r.study.name.replace(/[^\w.-]+/g, "_");
    const body = format === "csv" ? toCsv(COLUMNS, records) : records.map((x) => JSON.stringify(x)).join("\n") + (records.length ? "\n" : "");
    return new Response(body, {
      headers: {
        "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson",
        "content-disposition": `attachment; filename="${name}-results.${format}"`,
      },
    });
  });
}
