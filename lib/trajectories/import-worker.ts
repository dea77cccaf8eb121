/**
 * The import's reading thread (started by ParseWorker, lib/trajectories/import-worker-client.ts):
 * reads each log file it is sent into the rows to store and posts them back, so that parsing the
 * next file overlaps with the writer storing this one. It never touches the store.
 */
import { parentPort, workerData } from "node:worker_threads";
import { prepareLogFile, type LogAttribution } from "./parse-log";

const attribution = workerData as LogAttribution;
const port = parentPort!;
port.on("message", ({ id, file }: { id: number; file: string }) => {
  try {
    port.postMessage({ id, prepared: prepareLogFile(file, attribution) });
  } catch (err) {
    port.postMessage({ id, error: `reading ${file}: ${(err as Error)?.stack ?? String(err)}` });
  }
});
