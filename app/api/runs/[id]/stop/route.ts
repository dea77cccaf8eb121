import { NextResponse } from "next/server";
import { stopRun } from "@/lib/runs/run-manager";
import { respond } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** POST /api/runs/<id>/stop: stops a run of this server; finished episodes stay, running ones end interrupted. 409 when it is not running here. */
export function POST(_req: Request, ctx: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = await ctx.params;
    await stopRun(id);
    return NextResponse.json({ id, stopped: true });
  });
}
