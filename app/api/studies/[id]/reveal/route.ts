import { NextResponse, type NextRequest } from "next/server";
import { parseJsonBody, respond } from "@/lib/http/respond";
import { revealStudy } from "@/lib/studies/seal-reveal";
import { revealBodySchema } from "./schema";

export const dynamic = "force-dynamic";

/** POST /api/studies/<id>/reveal: the owner's logged look at an open study's outcomes (for 15 minutes). */
export function POST(req: NextRequest, { params }: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = await params;
    const { what } = await parseJsonBody(req, revealBodySchema);
    return NextResponse.json(await revealStudy(decodeURIComponent(id), what), { status: 201 });
  });
}
