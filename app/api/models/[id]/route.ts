import { NextResponse } from "next/server";
import { removeModel } from "@/lib/agent/models";
import { parseInput, respond } from "@/lib/http/respond";
import { modelParamsSchema } from "./schema";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ id: string }> };

/** DELETE /api/models/:id: removes a model added in the page, with its stored key (409 for a configured one). */
export function DELETE(_req: Request, ctx: Ctx) {
  return respond(async () => {
    const { id } = parseInput(modelParamsSchema, await ctx.params, "path");
    removeModel(decodeURIComponent(id));
    return NextResponse.json({ removed: true });
  });
}
