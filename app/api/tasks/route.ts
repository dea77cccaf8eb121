import { NextResponse, type NextRequest } from "next/server";
import { BadInputError, toHttp } from "@/lib/errors";
import { datasetsFor, searchTasks } from "@/lib/server/tasks";
import { tasksQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

/** GET /api/tasks: datasets and matching tasks (public fields only). */
export function GET(req: NextRequest) {
  try {
    const parsed = tasksQuerySchema.safeParse(Object.fromEntries(req.nextUrl.searchParams));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new BadInputError(issue.message, `query parameter ${issue.path.join(".")}`);
    }
    const q = parsed.data;
    return NextResponse.json({ datasets: datasetsFor(q.env), ...searchTasks(q) });
  } catch (err) {
    const { status, body } = toHttp(err);
    return NextResponse.json(body, { status });
  }
}
