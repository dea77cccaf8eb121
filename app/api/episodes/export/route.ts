import type { NextRequest } from "next/server";
import { listSealedTaskKeys, sealKey } from "@/lib/studies/baseline-seal";
import { exportEpisodes } from "@/lib/trajectories/export";
import { parseInput, respond } from "@/lib/http/respond";
import { toEpisodeFilters } from "@/lib/viewer/list-params";
import { exportQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

/** GET /api/episodes/export?format=jsonl|intercode&...filters: the filtered set as a download, streamed. Episodes of a task sealed by an unsubmitted baseline episode (lib/studies/baseline-seal.ts) are left out. */
export function GET(req: NextRequest) {
  return respond(async () => {
    const q = parseInput(exportQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query parameter");
    const { invalidMin: _ignored, ...filters } = toEpisodeFilters(q);
    const sealed = await listSealedTaskKeys();
    const enc = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        try {
          await exportEpisodes({ filters, format: q.format, skip: (e) => sealed.has(sealKey(e)), write: (chunk) => controller.enqueue(enc.encode(chunk)) });
          controller.close();
        } catch (err) {
          controller.error(err);
        }
      },
    });
    const name = q.format === "jsonl" ? "episodes.jsonl" : "episodes.intercode.json";
    return new Response(stream, {
      headers: {
        "content-type": q.format === "jsonl" ? "application/x-ndjson; charset=utf-8" : "application/json; charset=utf-8",
        "content-disposition": `attachment; filename="${name}"`,
      },
    });
  });
}
