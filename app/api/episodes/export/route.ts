import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import type { NextRequest } from "next/server";
import { exportAtifJob, exportInspectLog } from "@/lib/trajectories/export-ecosystem";
import { ZipWriter } from "@/lib/trajectories/inspect/zip";
import { listSealedTaskKeys, sealKey } from "@/lib/studies/baseline-seal";
import { exportEpisodes } from "@/lib/trajectories/export";
import { parseInput, respond } from "@/lib/http/respond";
import { toEpisodeFilters } from "@/lib/viewer/list-params";
import { exportQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

/** GET /api/episodes/export?format=jsonl|intercode|inspect|atif&...filters (inspect: an Inspect .eval log; atif: Harbor trial folders, zipped): the filtered set as a download, streamed. Episodes of a task sealed by an unsubmitted baseline episode (lib/studies/baseline-seal.ts) are left out. */
export function GET(req: NextRequest) {
  return respond(async () => {
    const q = parseInput(exportQuerySchema, Object.fromEntries(req.nextUrl.searchParams), "query parameter");
    const { invalidMin: _ignored, ...filters } = toEpisodeFilters(q);
    const sealed = await listSealedTaskKeys();
    const skip = (e: { environment: string; dataset: string; taskId: string }) => sealed.has(sealKey(e));
    if (q.format === "inspect" || q.format === "atif") {
      // Written to a private folder (an .eval, or the trial folders zipped), then streamed and removed.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-export-"));
      const file = path.join(dir, q.format === "inspect" ? "episodes.eval" : "episodes.atif.zip");
      try {
        if (q.format === "inspect") await exportInspectLog({ filters, out: file, skip });
        else {
          const job = path.join(dir, "episodes");
          await exportAtifJob({ filters, dir: job, skip });
          const zip = new ZipWriter(file);
          const walk = (d: string, rel: string) => {
            for (const n of fs.readdirSync(d).sort()) {
              const p = path.join(d, n);
              if (fs.statSync(p).isDirectory()) walk(p, `${rel}${n}/`);
              else zip.add(`${rel}${n}`, fs.readFileSync(p));
            }
          };
          walk(job, "episodes/");
          zip.close();
        }
      } catch (err) {
        fs.rmSync(dir, { recursive: true, force: true });
        throw err;
      }
      const stream = fs.createReadStream(file);
      stream.on("close", () => fs.rmSync(dir, { recursive: true, force: true }));
      return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, {
        headers: { "content-type": "application/zip", "content-disposition": `attachment; filename="${path.basename(file)}"` },
      });
    }
    const enc = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        try {
          await exportEpisodes({ filters, format: q.format as "jsonl" | "intercode", skip, write: (chunk) => controller.enqueue(enc.encode(chunk)) });
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
