import { NextResponse, type NextRequest } from "next/server";
import { BadInputError, toHttp } from "@/lib/errors";
import { startAgent } from "@/lib/agent/live-agents";
import { resolveTask } from "@/lib/server/tasks";
import { startAgentBodySchema } from "./schema";

export const dynamic = "force-dynamic";

/** POST /api/agent/runs: starts a model episode; follow it at /api/agent/runs/<id>/events. */
export async function POST(req: NextRequest) {
  try {
    let json: unknown;
    try {
      json = await req.json();
    } catch {
      throw new BadInputError("the body is not JSON", "body");
    }
    const parsed = startAgentBodySchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new BadInputError(issue.message, `body.${issue.path.join(".")}`);
    }
    const { env, taskRef, ...input } = parsed.data;
    const task = resolveTask(env, taskRef);
    const backend = process.env.IC_SANDBOX as "docker" | "local" | "auto" | undefined;
    const agent = startAgent(task, input, { envOptions: { backend, sqlUrl: process.env.IC_SQL_URL || undefined } });
    return NextResponse.json({ id: agent.id }, { status: 201 });
  } catch (err) {
    const { status, body } = toHttp(err);
    return NextResponse.json(body, { status });
  }
}
