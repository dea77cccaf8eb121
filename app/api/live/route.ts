import { NextResponse, type NextRequest } from "next/server";
import { config } from "@/lib/config";
import { startAgent } from "@/lib/live/model-actor";
import { parseJsonBody, respond } from "@/lib/http/respond";
import { resolveTask } from "@/lib/tasks/tasks";
import { startAgentBodySchema } from "./schema";

export const dynamic = "force-dynamic";

/** POST /api/live: starts a live model episode on a task; follow it over the websocket (a `watch` message). 409 while the task is sealed by a baseline episode. */
export function POST(req: NextRequest) {
  return respond(async () => {
    const { env, taskRef, ...input } = await parseJsonBody(req, startAgentBodySchema);
    const task = resolveTask(env, taskRef);
    const { backend, sqlUrl } = config();
    const agent = await startAgent(task, input, { envOptions: { backend, sqlUrl } });
    return NextResponse.json({ id: agent.id }, { status: 201 });
  });
}
