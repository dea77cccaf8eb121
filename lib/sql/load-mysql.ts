import "server-only";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Connection } from "mysql2/promise";
import { DATASETS_DIR } from "@/lib/datasets/paths";
import { BadInputError } from "@/lib/errors";
import { significant, splitStatements } from "./lexer";
import { parseMysqlDump } from "./mysql-dump";

/**
 * Loads databases into a MySQL-compatible server: InterCode's Spider dump (a MySQL 8 dump, with
 * the bits MariaDB rejects rewritten) and the project's demo scripts. A database is (re)loaded
 * when it is missing or was loaded from a different file; `icstudio_meta.loaded` remembers.
 */

const META_DB = "icstudio_meta";

/** Rewrites MySQL-8-only syntax for MariaDB; returns null for statements not to run (users, grants). */
export function sanitizeForMariadb(stmt: string): string | null {
  const head = stmt.trimStart().slice(0, 20).toUpperCase();
  if (/^(CREATE USER|GRANT|FLUSH|DROP USER|ALTER USER)/.test(head)) return null;
  return (
    stmt
      // /*!80016 DEFAULT ENCRYPTION='N' */ and other MySQL-8-only executable comments: MariaDB
      // (version 10+) would run them, and does not know them.
      .replace(/\/\*!80\d{3}[\s\S]*?\*\//g, "")
      .replace(/utf8mb4_0900_[a-z_]+/g, "utf8mb4_general_ci")
      .replace(/\bCOLLATE=utf8mb4_general_ci\b/g, "COLLATE=utf8mb4_general_ci")
  );
}

function sha(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}

async function ensureMeta(conn: Connection): Promise<void> {
  await conn.query(`CREATE DATABASE IF NOT EXISTS \`${META_DB}\``);
  await conn.query(
    `CREATE TABLE IF NOT EXISTS \`${META_DB}\`.loaded (name VARCHAR(64) PRIMARY KEY, source CHAR(32) NOT NULL, loaded_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP)`,
  );
}

async function loadedSource(conn: Connection, name: string): Promise<string | null> {
  const [rows] = await conn.query(
    `SELECT l.source FROM \`${META_DB}\`.loaded l JOIN information_schema.SCHEMATA s ON s.SCHEMA_NAME = l.name WHERE l.name = ?`,
    [name],
  );
  const list = rows as { source: string }[];
  return list.length ? list[0].source : null;
}

/** Runs a script's statements for the databases in `wanted` (all when null), with USE switching. */
async function runScript(conn: Connection, script: string, wanted: Set<string> | null, defaultDb: string | null): Promise<void> {
  let current: string | null = defaultDb;
  // Tables refer to each other before all exist; the dump's own SETs say so too, but a demo script may not.
  await conn.query("SET FOREIGN_KEY_CHECKS = 0");
  if (defaultDb) await conn.query(`USE \`${defaultDb}\``);
  for (const s of splitStatements(script)) {
    const sig = significant(s.tokens);
    const w0 = sig[0]?.text.toUpperCase();
    if (w0 === "USE" || (w0 === "CREATE" && /^(DATABASE|SCHEMA)$/i.test(sig[1]?.text ?? ""))) {
      const nameTok = w0 === "USE" ? sig[1] : sig[sig[2]?.text.toUpperCase() === "IF" ? 5 : 2];
      current = nameTok ? nameTok.text.replace(/^`|`$/g, "") : null;
      if (current && (wanted === null || wanted.has(current))) {
        if (w0 === "CREATE") {
          await conn.query(`DROP DATABASE IF EXISTS \`${current}\``);
          await conn.query(`CREATE DATABASE \`${current}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
        }
        await conn.query(`USE \`${current}\``);
      }
      continue;
    }
    if (!current || (wanted !== null && !wanted.has(current))) continue;
    const sql = sanitizeForMariadb(s.text);
    // Skip what is only plain comments; executable comments (/*!40014 SET ... */) run.
    if (!sql?.replace(/\/\*(?!!)[\s\S]*?\*\//g, "").trim()) continue;
    await conn.query(sql);
  }
  await conn.query("SET FOREIGN_KEY_CHECKS = 1");
}

export interface LoadMysqlOptions {
  /** The Spider dump (default: none). */
  dumpPath?: string;
  /** Directories of demo `<db>.sql` scripts (default: datasets/sql). */
  demoDirs?: string[];
}

/**
 * Makes sure `db` exists on the server, loading it from the Spider dump or a demo script when it
 * is missing or stale. Returns false when no source knows `db`.
 */
export async function ensureMysqlDatabase(conn: Connection, db: string, options: LoadMysqlOptions): Promise<boolean> {
  if (!/^[A-Za-z0-9_]{1,64}$/.test(db)) throw new BadInputError(`not a database name: ${JSON.stringify(db)}`, "db");
  await ensureMeta(conn);
  for (const dir of options.demoDirs ?? [path.join(DATASETS_DIR, "sql")]) {
    const file = path.join(dir, `${db}.sql`);
    if (!existsSync(file)) continue;
    const script = readFileSync(file, "utf8");
    const source = sha(script);
    if ((await loadedSource(conn, db)) === source) return true;
    await conn.query(`DROP DATABASE IF EXISTS \`${db}\``);
    await conn.query(`CREATE DATABASE \`${db}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci`);
    await runScript(conn, script, null, db);
    await conn.query(`REPLACE INTO \`${META_DB}\`.loaded (name, source) VALUES (?, ?)`, [db, source]);
    return true;
  }
  if (!options.dumpPath || !existsSync(options.dumpPath)) return false;
  const script = readFileSync(options.dumpPath, "utf8");
  const source = sha(script);
  const names = parseMysqlDump(script).map((d) => d.name);
  const name = names.find((n) => n.toLowerCase() === db.toLowerCase());
  if (!name) return false;
  if ((await loadedSource(conn, name.toLowerCase())) === source) return true;
  // Load every stale database of the dump in one pass (one read of the file).
  const stale = new Set<string>();
  for (const n of names) if ((await loadedSource(conn, n.toLowerCase())) !== source) stale.add(n);
  await runScript(conn, script, stale, null);
  for (const n of stale) await conn.query(`REPLACE INTO \`${META_DB}\`.loaded (name, source) VALUES (?, ?)`, [n.toLowerCase(), source]);
  return true;
}
