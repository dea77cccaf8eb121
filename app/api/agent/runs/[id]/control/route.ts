import { NextResponse, type NextRequest } from "next/server";
import { BadInputError, toHttp } from "@/lib/errors";
import { controlAgent } from "@/lib/agent/live-agents";
import { controlBodySchema } from "./schema";

export const dynamic = "force-dynamic";

/**
 * POST /api/agent/runs/<id>/control: {op: pause|resume|step|stop|takeOver|handBack}, or
 * {op: "action", text} to run a person's action after taking over (answers once it is stored).
 */
export async function POST(req: NextRequest, ctx: { params: Promise<{ id: string }> }) {
  try {
    const { id } = await ctx.params;
    let json: unknown;
    try {
      json = await req.json();
    } catch {
      throw new BadInputError("the body is not JSON", "body");
    }
    const parsed = controlBodySchema.safeParse(json);
    if (!parsed.success) throw new BadInputError(parsed.error.issues[0]!.message, "body.op");
    return NextResponse.json(await controlAgent(id, parsed.data));
  } catch (err) {
    const { status, body } = toHttp(err);
    return NextResponse.json(body, { status });
  }
}
