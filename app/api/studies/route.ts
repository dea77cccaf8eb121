import { NextResponse, type NextRequest } from "next/server";
import { parseJsonBody, respond } from "@/lib/http/respond";
import { createStudyFromSelection, listStudyViews } from "@/lib/studies/studies";
import { createStudyBodySchema } from "./schema";

export const dynamic = "force-dynamic";

/** GET /api/studies: every study (name, conditions, task count). */
export function GET() {
  return respond(async () => {
    const studies = await listStudyViews();
    return NextResponse.json({
      studies: studies.map((s) => ({
        id: s.id,
        name: s.name,
        env: s.config.env,
        dataset: s.config.dataset,
        tasks: s.config.tasks.length,
        feedback: s.config.feedback,
        turnLimit: s.config.turnLimit,
      })),
    });
  });
}

/** POST /api/studies: creates a study; its task list is fixed now. */
export function POST(req: NextRequest) {
  return respond(async () => {
    const study = await createStudyFromSelection(await parseJsonBody(req, createStudyBodySchema));
    return NextResponse.json({ id: study.id, name: study.name }, { status: 201 });
  });
}
