import type { NextRequest } from "next/server";
import { getAgent } from "@/lib/live/model-episodes";
import type { LoggedLiveEvent } from "@/lib/live/events";
import { parseInput, respond } from "@/lib/http/respond";
import { eventsQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

/**
 * GET /api/live/<id>/events: a server-sent event stream of the model episode, each event
 * `{seq, event}` (lib/live/events.ts), from `from` on (a reconnect resumes from the last seq seen).
 * Ends with the episode. A watcher only listens (its controls are POSTs to ./control), so a
 * one-way stream that reconnects by number is enough here; a person's episode needs the websocket.
 */
export function GET(req: NextRequest, ctx: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = await ctx.params;
    const q = parseInput(eventsQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query parameter");
    const agent = getAgent(id);
    const enc = new TextEncoder();
    let unsubscribe = () => {};
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        let closed = false;
        const send = (e: LoggedLiveEvent) => {
          if (closed) return;
          controller.enqueue(enc.encode(`data: ${JSON.stringify(e)}\n\n`));
          if (e.event.type === "episodeEnd" || e.event.type === "failed") {
            closed = true;
            unsubscribe();
            controller.close();
          }
        };
        for (const e of agent.log.slice(q.from)) send(e);
        if (!closed) unsubscribe = agent.subscribe(send);
        req.signal.addEventListener("abort", () => {
          unsubscribe();
          if (!closed) {
            closed = true;
            controller.close();
          }
        });
      },
      cancel() {
        unsubscribe();
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", connection: "keep-alive" } });
  });
}
