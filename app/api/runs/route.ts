import { NextResponse, type NextRequest } from "next/server";
import { listRuns } from "@/lib/db/runs";
import { launchRun } from "@/lib/runs/run-manager";
import { serverRunContext } from "@/lib/runs/server-context";
import { parseJsonBody, respond } from "@/lib/http/respond";
import { launchRunBodySchema } from "./schema";

export const dynamic = "force-dynamic";

/** GET /api/runs: the stored runs, newest first. */
export function GET() {
  return respond(async () => {
    const runs = await listRuns();
    return NextResponse.json({
      runs: runs.map((r) => ({
        id: r.id,
        name: r.name,
        status: r.status,
        total: r.total,
        done: r.done,
        solved: r.solved,
        errors: r.errors,
        createdAt: r.createdAt,
      })),
    });
  });
}

/**
 * POST /api/runs: launches a batch run in the server (the options of `icstudio eval`). Everything
 * is checked before anything starts: 400 naming the field (unknown dataset, a limit of 0, more
 * episodes at once than the sandbox cap), 409 for a name in use. 201 {id, name}.
 */
export function POST(req: NextRequest) {
  return respond(async () => {
    const run = await launchRun(await parseJsonBody(req, launchRunBodySchema), serverRunContext());
    return NextResponse.json(run, { status: 201 });
  });
}
