import { NextResponse, type NextRequest } from "next/server";
import { parseJsonBody, respond } from "@/lib/http/respond";
import { inviteParticipants, listParticipants, parseDuration } from "@/lib/studies/participants";
import { requestOrigin } from "@/lib/http/origin";
import { createInvitesBodySchema } from "./schema";

export const dynamic = "force-dynamic";

/** GET /api/studies/<id>/invites: the study's participants (label, state, consent, completion), never their secrets. */
export function GET(_req: NextRequest, { params }: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = await params;
    return NextResponse.json({ participants: await listParticipants(decodeURIComponent(id)) });
  });
}

/** POST /api/studies/<id>/invites: makes invites; their links are shown only in this answer. */
export function POST(req: NextRequest, { params }: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = await params;
    const body = await parseJsonBody(req, createInvitesBodySchema);
    const made = await inviteParticipants(decodeURIComponent(id), body.count, body.expires ? parseDuration(body.expires, "expires") : null);
    const origin = requestOrigin(req.headers);
    return NextResponse.json({ invites: made.map((m) => ({ participant: m.participant, id: m.id, url: `${origin}${m.path}` })) }, { status: 201 });
  });
}
