import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NextResponse } from "next/server";
import { importEcosystemUnit } from "@/lib/trajectories/ecosystem-import";
import { BadInputError } from "@/lib/errors";
import { importLogText, unreadFileReport, type FileReport } from "@/lib/trajectories/import";
import { parseInput, respond } from "@/lib/http/respond";
import { importFormSchema, MAX_UPLOAD_BYTES } from "./schema";

export const dynamic = "force-dynamic";

/** POST /api/episodes/import: uploads InterCode logs, JSONL, Inspect eval logs (.eval, .json) or ATIF trajectories and imports them (one transaction a file). */
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
      const attribution = { model: opts.model, policy: opts.policy, dataset: opts.dataset, turnLimit: opts.turns };
      if (/\.eval$/i.test(f.name)) {
        // An Inspect .eval is a zip, read from disk entry by entry: it goes to a private folder under its own name first.
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-upload-"));
        try {
          const file = path.join(dir, path.basename(f.name).replace(/[^\w.-]+/g, "_").replace(/^\.+/, "") || "upload.eval");
          fs.writeFileSync(file, Buffer.from(await f.arrayBuffer()));
          reports.push({ ...(await importEcosystemUnit({ kind: "inspect-eval", path: file }, attribution)), file: f.name });
        } finally {
          fs.rmSync(dir, { recursive: true, force: true });
        }
        continue;
      }
      reports.push(await importLogText(f.name, await f.text(), attribution));
    }
    return NextResponse.json({ files: reports });
  });
}
