import { NextResponse, type NextRequest } from "next/server";
import { respond } from "@/lib/http/respond";
import { revokeParticipant } from "@/lib/studies/participants";

export const dynamic = "force-dynamic";

/** DELETE /api/studies/<id>/participants/<participantId>: revokes the invite; their access ends at their next request. */
export function DELETE(_req: NextRequest, { params }: { params: Promise<{ id: string; participantId: string }> }) {
  return respond(async () => {
    const { id, participantId } = await params;
    return NextResponse.json(await revokeParticipant(decodeURIComponent(id), decodeURIComponent(participantId)));
  });
}
