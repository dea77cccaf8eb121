import "server-only";
import { config } from "@/lib/config";
import { BadInputError } from "@/lib/errors";
import type { SqlEngine } from "./types";

/**
 * Process-wide SQL engines, one per kind and server, so episodes share warm processes, database
 * images, connections and gold caches. The map lives on globalThis: Next.js bundles and server.ts
 * each load their own copy of this file, and each copy kept its own engine and warm pool of
 * helper processes (issue 26: 11 helpers under one server).
 */
const engines: Map<string, Promise<SqlEngine>> = ((globalThis as Record<string, unknown>).__icStudioSqlEngines ??= new Map()) as Map<
  string,
  Promise<SqlEngine>
>;

/** The engine for `url` (mysql://...), else IC_SQL_URL, else embedded SQLite. */
export function getSqlEngine(url: string | undefined = config().sqlUrl): Promise<SqlEngine> {
  const key = url ? `mysql:${url}` : "sqlite";
  let hit = engines.get(key);
  if (!hit) {
    hit = (async (): Promise<SqlEngine> => {
      if (!url) return (await import("./sqlite-engine")).createSqliteEngine();
      if (!/^mysql:\/\//.test(url)) throw new BadInputError(`expected mysql://user:password@host:port, got ${JSON.stringify(url)}`, "IC_SQL_URL");
      return (await import("./mysql-engine")).createMysqlEngine({ url });
    })();
    hit.catch(() => engines.delete(key));
    engines.set(key, hit);
  }
  return hit;
}
