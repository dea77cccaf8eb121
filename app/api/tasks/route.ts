import { NextResponse, type NextRequest } from "next/server";
import { datasetsFor, searchTasks } from "@/lib/tasks/tasks";
import { parseInput, respond } from "@/lib/http/respond";
import { tasksQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

/** GET /api/tasks: datasets and matching tasks (public fields only). */
export function GET(req: NextRequest) {
  return respond(() => {
    const q = parseInput(tasksQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query parameter");
    return NextResponse.json({ datasets: datasetsFor(q.env), ...searchTasks(q) });
  });
}
