import { NextResponse, type NextRequest } from "next/server";
import { controlAgent } from "@/lib/live/model-episodes";
import { parseJsonBody, respond } from "@/lib/http/respond";
import { controlBodySchema } from "./schema";

export const dynamic = "force-dynamic";

/**
 * POST /api/live/<id>/control: {op: pause|resume|step|stop|takeOver|handBack}, or
 * {op: "action", text, source?} (source: console, editor or button, where the person typed it) to run a person's action after taking over (answers once it is stored).
 */
export function POST(req: NextRequest, ctx: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = await ctx.params;
    return NextResponse.json(await controlAgent(id, await parseJsonBody(req, controlBodySchema)));
  });
}
