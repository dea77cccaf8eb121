import { NextResponse } from "next/server";
import { testModelConnection } from "@/lib/agent/connection-test";
import { parseInput, respond } from "@/lib/http/respond";
import { modelParamsSchema } from "./schema";

export const dynamic = "force-dynamic";

type Ctx = { params: Promise<{ id: string }> };

/** POST /api/models/:id/test: one tiny request to the model; answers { ok, latencyMs, message } (the provider's error when not ok). */
export function POST(_req: Request, ctx: Ctx) {
  return respond(async () => {
    const { id } = parseInput(modelParamsSchema, await ctx.params, "path");
    return NextResponse.json({ test: await testModelConnection(decodeURIComponent(id)) });
  });
}
