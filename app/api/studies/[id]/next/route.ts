import { NextResponse, type NextRequest } from "next/server";
import { nextStudyTask } from "@/lib/studies/studies";
import { parseInput, respond } from "@/lib/http/respond";
import { studyNextQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

/** The annotator's next task in a study (its URL and position), or href null when done. */
export function GET(req: NextRequest, { params }: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = await params;
    const { annotator } = parseInput(studyNextQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query parameter");
    return NextResponse.json(await nextStudyTask(id, annotator));
  });
}
