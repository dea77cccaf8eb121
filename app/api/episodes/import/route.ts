import { NextResponse } from "next/server";
import { BadInputError } from "@/lib/errors";
import { importLogText, unreadFileReport, type FileReport } from "@/lib/trajectories/import";
import { parseInput, respond } from "@/lib/http/respond";
import { importFormSchema, MAX_UPLOAD_BYTES } from "./schema";

export const dynamic = "force-dynamic";

/** POST /api/episodes/import: uploads InterCode logs or JSONL and imports them (one transaction a file). */
export function POST(req: Request) {
  return respond(async () => {
    let form: FormData;
    try {
      form = await req.formData();
    } catch {
      throw new BadInputError("send a multipart form with one or more `file` fields", "body");
    }
    const opts = parseInput(
      importFormSchema,
      Object.fromEntries([...form.entries()].filter(([k, v]) => k !== "file" && typeof v === "string" && v.trim() !== "")),
      "form field",
    );
    const files = form.getAll("file").filter((f): f is File => typeof f === "object" && f !== null && "text" in f);
    if (!files.length) throw new BadInputError("no file uploaded", "form field file");
    const reports: FileReport[] = [];
    for (const f of files) {
      // Give other requests and the websocket their turn between files.
      await new Promise((r) => setImmediate(r));
      if (f.size > MAX_UPLOAD_BYTES) {
        reports.push(unreadFileReport(f.name, `too large (${f.size} bytes; the limit is ${MAX_UPLOAD_BYTES})`));
        continue;
      }
      reports.push(await importLogText(f.name, await f.text(), { model: opts.model, policy: opts.policy, dataset: opts.dataset, turnLimit: opts.turns }));
    }
    return NextResponse.json({ files: reports });
  });
}
