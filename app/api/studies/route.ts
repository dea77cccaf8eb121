import { NextResponse, type NextRequest } from "next/server";
import { BadInputError, toHttp } from "@/lib/errors";
import { createStudyFromSelection, listStudyViews } from "@/lib/server/studies";
import { createStudyBodySchema } from "./schema";

export const dynamic = "force-dynamic";

/** GET /api/studies: every study (name, conditions, task count). */
export async function GET() {
  try {
    const studies = await listStudyViews();
    return NextResponse.json({
      studies: studies.map((s) => ({ id: s.id, name: s.name, env: s.config.env, dataset: s.config.dataset, tasks: s.config.tasks.length, feedback: s.config.feedback, turnLimit: s.config.turnLimit })),
    });
  } catch (err) {
    const { status, body } = toHttp(err);
    return NextResponse.json(body, { status });
  }
}

/** POST /api/studies: creates a study; its task list is fixed now. */
export async function POST(req: NextRequest) {
  try {
    let json: unknown;
    try {
      json = await req.json();
    } catch {
      throw new BadInputError("the body is not JSON", "body");
    }
    const parsed = createStudyBodySchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new BadInputError(issue.message, `body.${issue.path.join(".")}`);
    }
    const study = await createStudyFromSelection(parsed.data);
    return NextResponse.json({ id: study.id, name: study.name }, { status: 201 });
  } catch (err) {
    const { status, body } = toHttp(err);
    return NextResponse.json(body, { status });
  }
}
