import { NextResponse } from "next/server";
import { resumeRun } from "@/lib/runs/run-manager";
import { serverRunContext } from "@/lib/runs/server-context";
import { respond } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** POST /api/runs/<id>/resume: runs what the run has left (tasks without a finished episode). 409 while some process runs it. */
export function POST(_req: Request, ctx: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = await ctx.params;
    return NextResponse.json(await resumeRun(id, serverRunContext()));
  });
}
