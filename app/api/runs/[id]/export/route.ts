import type { NextRequest } from "next/server";
import { NotFoundError } from "@/lib/errors";
import { buildRunView } from "@/lib/runs/run-view";
import { toCsv } from "@/lib/viewer/csv";
import { parseInput, respond } from "@/lib/http/respond";
import { runExportQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

const COLUMNS = [
  "taskId",
  "status",
  "reward",
  "success",
  "turns",
  "solvedAtTurn",
  "group",
  "tokensIn",
  "tokensOut",
  "costUsd",
  "episodeId",
  "errorReason",
  "sealed",
];

/** GET /api/runs/<id>/export?format=csv: one row per task of the run, as the run page's table. */
export function GET(req: NextRequest, ctx: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = await ctx.params;
    parseInput(runExportQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query parameter");
    const view = await buildRunView(id);
    if (!view) throw new NotFoundError(`run ${id}`);
    const name = view.name.replace(/[^\w.-]+/g, "_");
    return new Response(toCsv(COLUMNS, view.tasks as unknown as Record<string, unknown>[]), {
      headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${name}.csv"` },
    });
  });
}
