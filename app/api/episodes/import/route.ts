import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { NextResponse } from "next/server";
import { BadInputError } from "@/lib/errors";
import { unreadFileReport, type FileReport } from "@/lib/trajectories/import";
import { importUploadedFile } from "@/lib/trajectories/upload-import";
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
    const attribution = { model: opts.model, policy: opts.policy, dataset: opts.dataset, turnLimit: opts.turns };
    // Each file goes to a private folder under its own name, and the upload thread reads, converts
    // and stores it (lib/trajectories/upload-import.ts): this thread keeps serving meanwhile.
    const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "ic-upload-"));
    try {
      for (const [i, f] of files.entries()) {
        if (f.size > MAX_UPLOAD_BYTES) {
          reports.push(unreadFileReport(f.name, `too large (${f.size} bytes; the limit is ${MAX_UPLOAD_BYTES})`));
          continue;
        }
        const file = path.join(
          dir,
          `${i}-${
            path
              .basename(f.name)
              .replace(/[^\w.-]+/g, "_")
              .replace(/^\.+/, "") || "upload"
          }`,
        );
        await fs.promises.writeFile(file, Buffer.from(await f.arrayBuffer()));
        try {
          reports.push(await importUploadedFile(f.name, file, attribution));
        } finally {
          await fs.promises.rm(file, { force: true });
        }
      }
    } finally {
      await fs.promises.rm(dir, { recursive: true, force: true });
    }
    return NextResponse.json({ files: reports });
  });
}
