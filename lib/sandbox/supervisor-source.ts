import "server-only";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The sandbox supervisor (Python 3, run as PID 1 of every sandbox by both backends): starts
 * commands, streams their output, kills them, reads and writes files; JSON lines on stdin and
 * stdout. Its program is supervisor.py beside this file (read once, sent to the sandbox as its
 * first line); `supervisor-client.ts` is the host half of its protocol.
 */
export const SUPERVISOR_SOURCE = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), "supervisor.py"), "utf8");

/** Starts the supervisor: reads its source as one JSON-encoded line from stdin, then serves. */
export const SUPERVISOR_BOOTSTRAP = ["python3", "-c", "import sys,json;exec(json.loads(sys.stdin.buffer.readline()))"];
