import { NextResponse } from "next/server";
import { respond } from "@/lib/http/respond";
import { closeStudy } from "@/lib/studies/studies";

export const dynamic = "force-dynamic";

/** POST /api/studies/<id>/close: ends the study (invites stop working) and lifts its seal. */
export function POST(_req: Request, { params }: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = await params;
    return NextResponse.json(await closeStudy(decodeURIComponent(id)));
  });
}
