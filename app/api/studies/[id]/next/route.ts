import { NextResponse, type NextRequest } from "next/server";
import { nextStudyTask } from "@/lib/studies/studies";
import { parseInput, respond } from "@/lib/http/respond";
import { principalOf } from "@/lib/http/principal";
import { participantProgress } from "@/lib/studies/participant-flow";
import { studyNextQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

/**
 * The annotator's next task in a study (its URL and position), or href null when done. A
 * participant gets their own (their name and order; the query's annotator is not theirs to choose).
 */
export function GET(req: NextRequest, { params }: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = await params;
    const who = await principalOf(req.headers);
    if (who.role === "participant") return NextResponse.json(await participantProgress(who.scope));
    const { annotator } = parseInput(studyNextQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query parameter");
    return NextResponse.json(await nextStudyTask(id, annotator));
  });
}
