/**
 * The upload importer's thread (started by lib/trajectories/upload-import.ts): reads, converts and
 * stores one uploaded file at a time, on its own connection to the store, so that a large upload
 * never holds the server's event loop. Its writes take the server's write lock (lib/db/lock.ts).
 */
import { parentPort } from "node:worker_threads";
import { borrowParentWriteLock } from "@/lib/db/lock";
import { StudioError } from "@/lib/errors";
import { importFileAs, type UploadJob, type UploadResult } from "./upload-import";

const port = parentPort!;
borrowParentWriteLock(port);

// One job at a time, in the order sent: the client sends the next only after this one's answer.
port.on("message", async (m: UploadJob | { icWriteLock: unknown }) => {
  if (!("job" in m)) return;
  let answer: UploadResult;
  try {
    answer = { job: m.job, report: await importFileAs(m.name, m.path, m.attribution) };
  } catch (err) {
    const e = err as Error;
    answer = {
      job: m.job,
      error: {
        code: err instanceof StudioError ? err.code : "internal",
        message: e?.message ?? String(err),
        details: err instanceof StudioError ? err.details : undefined,
      },
    };
  }
  port.postMessage(answer);
});
