import { NextResponse, type NextRequest } from "next/server";
import { respond } from "@/lib/http/respond";
import { requireParticipantOf } from "@/lib/http/principal";
import { recordConsent } from "@/lib/studies/participant-flow";

export const dynamic = "force-dynamic";

/** POST /api/studies/<id>/consent: the participant agrees to the study's terms (once). */
export function POST(req: NextRequest, { params }: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = await params;
    const scope = await requireParticipantOf(req.headers, id);
    await recordConsent(scope);
    return NextResponse.json({ ok: true });
  });
}
