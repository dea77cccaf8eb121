import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import WebSocket from "ws";
import { type ClientMessageInput, parseServerMessage } from "@/lib/live/protocol";
import type { ServerMessage } from "@/lib/live/events";

/** A temporary directory with a database path in it. */
export function tempDb(prefix: string): { dir: string; db: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, db: path.join(dir, "studio.db") };
}

/** A websocket client speaking lib/live/protocol, with a queue to wait on. */
export interface WsClient {
  send(msg: ClientMessageInput | string): void;
  /** The next server message matching `pred` (earlier non-matching ones are kept in `seen`). */
  next<T extends ServerMessage["type"]>(type: T | T[], timeoutMs?: number): Promise<Extract<ServerMessage, { type: T }>>;
  seen: ServerMessage[];
  raw: string[];
  closed: Promise<{ code: number }>;
  close(): void;
}

/** Opens `/ws` on `url` (http://...), with headers (e.g. a token) when given. */
export async function connectWs(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/ws`, { headers });
  const seen: ServerMessage[] = [];
  const raw: string[] = [];
  const waiters: { types: string[]; resolve: (m: ServerMessage) => void }[] = [];
  let cursor = 0;
  ws.on("message", (data) => {
    const text = data.toString();
    raw.push(text);
    const p = parseServerMessage(text);
    if (!p.ok) return;
    seen.push(p.message);
    pump();
  });
  const closed = new Promise<{ code: number }>((resolve) => ws.once("close", (code) => resolve({ code })));
  function pump() {
    while (waiters.length && cursor < seen.length) {
      const m = seen[cursor++];
      const i = waiters.findIndex((w) => w.types.includes(m.type));
      if (i >= 0) waiters.splice(i, 1)[0].resolve(m);
    }
  }
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
    ws.once("unexpected-response", (_req, res) => reject(new Error(`websocket refused: HTTP ${res.statusCode}`)));
  });
  return {
    seen,
    raw,
    closed,
    send: (msg) => ws.send(typeof msg === "string" ? msg : JSON.stringify(msg)),
    next: (type, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const types = Array.isArray(type) ? type : [type];
        const timer = setTimeout(() => reject(new Error(`no ${types.join("/")} message in ${timeoutMs} ms; seen: ${raw.slice(-5).join(" ")}`)), timeoutMs);
        waiters.push({
          types,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m as never);
          },
        });
        pump();
        void closed.then(() => reject(new Error(`websocket closed while waiting for ${types.join("/")}`)));
      }),
    close: () => ws.close(),
  };
}
