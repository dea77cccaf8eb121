import { NotFoundError } from "@/lib/errors";
import { onRunChange } from "@/lib/runs/run-manager";
import { buildRunView } from "@/lib/runs/run-view";
import { respond } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** A run of another process (`icstudio eval`) is read from the store this often. */
const POLL_MS = 1000;
/** Changes closer together than this go out as one snapshot. */
const BATCH_MS = 50;

/**
 * GET /api/runs/<id>/events: server-sent events, each a whole RunView (`data: {...}`), sent when
 * the run changes: at once for a run of this server (it signals every episode start, turn and
 * end), from the store every second for a run of another process. Ends once the run is over.
 */
export function GET(req: Request, ctx: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = await ctx.params;
    const first = await buildRunView(id);
    if (!first) throw new NotFoundError(`run ${id}`);
    const enc = new TextEncoder();
    let wake: (() => void) | null = null;
    let dirty = false;
    const off = onRunChange(id, () => {
      dirty = true;
      wake?.();
    });
    let closed = false;
    const close = () => {
      closed = true;
      off();
      wake?.();
    };
    req.signal.addEventListener("abort", close);
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        let last = "";
        let view = first;
        try {
          for (;;) {
            const text = JSON.stringify(view);
            if (text !== last) {
              controller.enqueue(enc.encode(`data: ${text}\n\n`));
              last = text;
            }
            if (closed || !view.live) break;
            if (!dirty)
              await new Promise<void>((r) => {
                wake = r;
                setTimeout(r, POLL_MS);
              });
            wake = null;
            if (closed) break;
            if (dirty) await new Promise((r) => setTimeout(r, BATCH_MS));
            dirty = false;
            const next = await buildRunView(id);
            if (!next) break;
            view = next;
          }
        } catch (err) {
          controller.enqueue(enc.encode(`event: failed\ndata: ${JSON.stringify({ message: err instanceof Error ? err.message : String(err) })}\n\n`));
        } finally {
          off();
          if (!closed) controller.close();
        }
      },
      cancel: close,
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform", connection: "keep-alive" } });
  });
}
