import { NextResponse, type NextRequest } from "next/server";
import { BadInputError, ForbiddenError } from "@/lib/errors";
import { parseJsonBody, respond } from "@/lib/http/respond";
import { principalOf } from "@/lib/http/principal";
import { beatStudyClock } from "@/lib/studies/study-clock";
import { clockBeatBodySchema } from "./schema";

export const dynamic = "force-dynamic";

/** POST /api/studies/<id>/clock: adds a beat of active time to a task's clock; answers the clock and what is left of the time limit. */
export function POST(req: NextRequest, { params }: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const id = decodeURIComponent((await params).id);
    const body = await parseJsonBody(req, clockBeatBodySchema);
    const who = await principalOf(req.headers);
    let annotator: string;
    if (who.role === "participant") {
      if (who.scope.studyId !== id || !who.scope.tasks.includes(body.taskId)) throw new ForbiddenError(`task ${body.taskId} is not one of yours`);
      annotator = who.scope.label;
    } else {
      if (!body.annotator) throw new BadInputError("name the annotator whose clock this is", "body annotator");
      annotator = body.annotator;
    }
    return NextResponse.json(await beatStudyClock(id, annotator, body.taskId, body.activeMs));
  });
}
