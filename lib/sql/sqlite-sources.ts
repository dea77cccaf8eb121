import "server-only";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { BadInputError, NotFoundError } from "@/lib/errors";
import { DATASETS_DIR, intercodeDataDir, sharedIntercodeDir } from "@/lib/datasets/paths";
import {
  buildSqliteDatabase,
  catalogTables,
  ensureConverted,
  spiderSqliteDir,
  type Catalog,
  type CatalogTable,
  type CollationMode,
} from "./convert-mysql-dump";
import { parseMysqlDump } from "./mysql-dump";

/**
 * Where the SQLite engine finds a database by name: the project's demo databases
 * (`datasets/sql/<db>.sql`, built in memory) and InterCode's Spider databases (converted from
 * the MySQL dump into `var/datasets/intercode/spider-sqlite/` on first use).
 */

/** A database ready to copy: its SQLite file image and its MySQL schema. */
export interface SqliteImage {
  name: string;
  image: Buffer;
  tables: CatalogTable[];
}

export interface SqliteSourceOptions {
  /** Directories of `<db>.sql` scripts (default: datasets/sql). */
  demoDirs?: string[];
  /** Directory of converted Spider databases (default: var/datasets/intercode/spider-sqlite). */
  spiderDir?: string;
  /** Candidate dump files, first existing wins (default: the fetched copy, then ../shared/intercode). */
  dumpPaths?: string[];
  collation?: CollationMode;
}

const DUMP_RELATIVE = path.join("sql", "spider", "ic_spider_dbs.sql");

/** The Spider dump: the fetched copy under var/, else the shared read-only one. */
export function defaultDumpPaths(): string[] {
  return [path.join(intercodeDataDir(), DUMP_RELATIVE), path.join(sharedIntercodeDir(), DUMP_RELATIVE)];
}

/** Resolves database names to images, caching each one for the life of the process. */
export class SqliteSources {
  private readonly cache = new Map<string, SqliteImage>();
  private spiderCatalog: Catalog | null = null;
  readonly collation: CollationMode;

  constructor(private readonly options: SqliteSourceOptions = {}) {
    this.collation = options.collation ?? "nocase";
  }

  /** The image of `db`; throws NotFoundError when no source has it. */
  get(db: string): SqliteImage {
    if (!/^[A-Za-z0-9_]{1,64}$/.test(db)) throw new BadInputError(`not a database name: ${JSON.stringify(db)}`, "db");
    const hit = this.cache.get(db);
    if (hit) return hit;
    const image = this.fromDemo(db) ?? this.fromSpider(db);
    if (!image) throw new NotFoundError(`SQL database ${db}`, { db });
    this.cache.set(db, image);
    return image;
  }

  private fromDemo(db: string): SqliteImage | null {
    for (const dir of this.options.demoDirs ?? [path.join(DATASETS_DIR, "sql")]) {
      const file = path.join(dir, `${db}.sql`);
      if (!existsSync(file)) continue;
      const parsed = parseMysqlDump(readFileSync(file, "utf8"), db);
      const target = parsed.find((d) => d.name === db) ?? parsed[0];
      if (!target) throw new BadInputError("no tables", file);
      return { name: db, image: buildSqliteDatabase(target, this.collation), tables: catalogTables(target) };
    }
    return null;
  }

  /** Converts the Spider dump if needed and returns its catalog (null when no dump is available). */
  spider(): Catalog | null {
    if (this.spiderCatalog) return this.spiderCatalog;
    const dump = (this.options.dumpPaths ?? defaultDumpPaths()).find((p) => existsSync(p));
    if (!dump) return null;
    this.spiderCatalog = ensureConverted({ dumpPath: dump, outDir: this.spiderDirPath(), collation: this.collation });
    return this.spiderCatalog;
  }

  private spiderDirPath(): string {
    const base = this.options.spiderDir ?? spiderSqliteDir();
    // Each collation mode gets its own directory so that both can exist side by side.
    return this.collation === "nocase" ? base : `${base}-${this.collation}`;
  }

  private fromSpider(db: string): SqliteImage | null {
    const catalog = this.spider();
    const entry = catalog?.databases[db];
    if (!entry) return null;
    const file = path.join(this.spiderDirPath(), `${db}.sqlite`);
    return { name: db, image: readFileSync(file), tables: entry.tables };
  }
}
