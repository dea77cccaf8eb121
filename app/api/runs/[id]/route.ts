import { NextResponse } from "next/server";
import { NotFoundError } from "@/lib/errors";
import { buildRunView } from "@/lib/runs/run-view";
import { respond } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** GET /api/runs/<id>: the run with its live counts, measures and per-task rows. */
export function GET(_req: Request, ctx: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = await ctx.params;
    const view = await buildRunView(id);
    if (!view) throw new NotFoundError(`run ${id}`);
    return NextResponse.json(view);
  });
}
