import fs from "node:fs";
import type Database from "better-sqlite3";

/** A scalar field of a model in schema.prisma, as the migration must create it. */
export interface SchemaField {
  name: string;
  type: string;
  optional: boolean;
  id: boolean;
  unique: boolean;
  hasDefault: boolean;
}

export interface SchemaIndex {
  name: string;
  columns: string[];
  unique: boolean;
}

export interface SchemaForeignKey {
  columns: string[];
  table: string;
  references: string[];
  onDelete: string;
}

export interface SchemaModel {
  name: string;
  fields: SchemaField[];
  indexes: SchemaIndex[];
  foreignKeys: SchemaForeignKey[];
}

const SQL_TYPE: Record<string, string> = {
  String: "TEXT",
  Int: "INTEGER",
  Float: "REAL",
  Boolean: "BOOLEAN",
  DateTime: "DATETIME",
  BigInt: "BIGINT",
  Bytes: "BLOB",
  Decimal: "DECIMAL",
  Json: "JSONB",
};
const ON_DELETE: Record<string, string> = { Cascade: "CASCADE", SetNull: "SET NULL", Restrict: "RESTRICT", NoAction: "NO ACTION", SetDefault: "SET DEFAULT" };

function list(s: string): string[] {
  return s
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
}

/**
 * A small parser for the subset of the Prisma schema language this project uses: models, scalar
 * fields with ?, @id, @unique, @default, relations with fields/references/onDelete, @@index and
 * @@unique. It names indexes the way Prisma's migrations do (`Model_a_b_idx`, `Model_a_key`).
 */
export function parsePrismaSchema(text: string): SchemaModel[] {
  const models: SchemaModel[] = [];
  const modelNames = new Set([...text.matchAll(/^model\s+(\w+)\s*\{/gm)].map((m) => m[1]));
  for (const m of text.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    const model: SchemaModel = { name: m[1], fields: [], indexes: [], foreignKeys: [] };
    for (const raw of m[2].split("\n")) {
      const line = raw.replace(/\/\/.*$/, "").trim();
      if (!line) continue;
      const block = line.match(/^@@(index|unique)\(\[([^\]]*)\]/);
      if (block) {
        const cols = list(block[2]);
        const unique = block[1] === "unique";
        const map = line.match(/\bmap:\s*"([^"]+)"/);
        model.indexes.push({ name: map ? map[1] : `${model.name}_${cols.join("_")}_${unique ? "key" : "idx"}`, columns: cols, unique });
        continue;
      }
      if (line.startsWith("@@")) throw new Error(`schema-match: unsupported block attribute in ${model.name}: ${line}`);
      const f = line.match(/^(\w+)\s+(\w+)(\[\])?(\?)?\s*(.*)$/);
      if (!f) throw new Error(`schema-match: cannot read field line in ${model.name}: ${line}`);
      const [, name, type, isList, optional, attrs] = f;
      if (modelNames.has(type) || isList) {
        const rel = attrs.match(/@relation\(([^)]*)\)/);
        const fields = rel?.[1].match(/fields:\s*\[([^\]]*)\]/);
        if (rel && fields) {
          const refs = rel[1].match(/references:\s*\[([^\]]*)\]/);
          const onDelete = rel[1].match(/onDelete:\s*(\w+)/);
          model.foreignKeys.push({
            columns: list(fields[1]),
            table: type,
            references: list(refs?.[1] ?? "id"),
            onDelete: ON_DELETE[onDelete?.[1] ?? ""] ?? (optional ? "SET NULL" : "RESTRICT"),
          });
        }
        continue;
      }
      const field: SchemaField = {
        name,
        type: SQL_TYPE[type] ?? type,
        optional: Boolean(optional),
        id: /@id\b/.test(attrs),
        unique: /@unique\b/.test(attrs),
        hasDefault: /@default\(/.test(attrs) && !/@default\((uuid|cuid|autoincrement)\(/.test(attrs),
      };
      model.fields.push(field);
      if (field.unique) model.indexes.push({ name: `${model.name}_${name}_key`, columns: [name], unique: true });
    }
    models.push(model);
  }
  return models;
}

/**
 * Indexes on expressions, which schema.prisma cannot state: per model, each with its columns as the
 * engines report them (an expression as "(expression)"). The migration that creates each says why.
 */
const EXPRESSION_INDEXES: Record<string, SchemaIndex[]> = {
  // The list's player sort, COALESCE("annotator", "model") then id (migration list_sort_indexes).
  Episode: [{ name: "Episode_player_id_idx", columns: ["(expression)", "id"], unique: false }],
};

/** Tables the migrations create outside the Prisma schema: the migration ledger and the FTS switch. */
const INTERNAL_TABLES = new Set(["_studio_migrations", "_FtsControl"]);

/** What a migrated database holds, read the same way from either engine. */
export interface DatabaseShape {
  tables: Set<string>;
  columns: Map<string, Array<{ name: string; type: string; notNull: boolean; hasDefault: boolean; pk: boolean }>>;
  /** Indexes created by CREATE INDEX (not the primary key's). */
  indexes: Map<string, Array<{ name: string; unique: boolean; columns: string[] }>>;
  /** One row per foreign key column. */
  foreignKeys: Map<string, Array<{ table: string; from: string; onDelete: string }>>;
}

/** Prisma's column types on PostgreSQL (as format_type prints them, upper-cased). */
const PG_TYPE: Record<string, string> = {
  TEXT: "TEXT",
  INTEGER: "INTEGER",
  REAL: "DOUBLE PRECISION",
  BOOLEAN: "BOOLEAN",
  DATETIME: "TIMESTAMP(3) WITHOUT TIME ZONE",
};

/** Compares schema.prisma's models with a database's shape; returns every mismatch found. */
function compareSchemaWithShape(models: SchemaModel[], shape: DatabaseShape, engine: "sqlite" | "postgresql"): string[] {
  const problems: string[] = [];
  for (const model of models) {
    if (!shape.tables.has(model.name)) {
      problems.push(`table ${model.name} is missing`);
      continue;
    }
    const cols = shape.columns.get(model.name) ?? [];
    const byName = new Map(cols.map((c) => [c.name, c]));
    for (const f of model.fields) {
      const c = byName.get(f.name);
      if (!c) {
        problems.push(`${model.name}.${f.name}: column missing`);
        continue;
      }
      const want = engine === "sqlite" ? f.type : (PG_TYPE[f.type] ?? f.type);
      if (c.type.toUpperCase() !== want) problems.push(`${model.name}.${f.name}: type ${c.type}, schema says ${want}`);
      const notNull = c.notNull || c.pk;
      if (notNull === f.optional)
        problems.push(`${model.name}.${f.name}: ${notNull ? "NOT NULL" : "nullable"} in the database, schema says ${f.optional ? "optional" : "required"}`);
      if (c.pk !== f.id) problems.push(`${model.name}.${f.name}: primary key mismatch`);
      if (c.hasDefault !== f.hasDefault)
        problems.push(`${model.name}.${f.name}: ${c.hasDefault ? "a default" : "no default"} in the database, schema ${f.hasDefault ? "has one" : "has none"}`);
    }
    for (const c of cols) if (!model.fields.some((f) => f.name === c.name)) problems.push(`${model.name}.${c.name}: column not in the schema`);

    const dbIndexes = shape.indexes.get(model.name) ?? [];
    const indexes = [...model.indexes, ...(EXPRESSION_INDEXES[model.name] ?? [])];
    for (const idx of indexes) {
      const found = dbIndexes.find((i) => i.name === idx.name);
      if (!found) {
        problems.push(`index ${idx.name} is missing`);
        continue;
      }
      if (found.columns.join(",") !== idx.columns.join(","))
        problems.push(`index ${idx.name}: columns ${found.columns.join(",")}, schema says ${idx.columns.join(",")}`);
      if (found.unique !== idx.unique) problems.push(`index ${idx.name}: uniqueness differs`);
    }
    for (const i of dbIndexes) if (!indexes.some((x) => x.name === i.name)) problems.push(`index ${i.name} is not in the schema`);

    const fks = shape.foreignKeys.get(model.name) ?? [];
    for (const fk of model.foreignKeys) {
      const hit = fks.filter((r) => r.table === fk.table && fk.columns.includes(r.from));
      if (hit.length !== fk.columns.length) problems.push(`${model.name}: foreign key (${fk.columns}) → ${fk.table} is missing`);
      else if (hit.some((r) => r.onDelete !== fk.onDelete))
        problems.push(`${model.name}: foreign key (${fk.columns}) ON DELETE ${hit[0].onDelete}, schema says ${fk.onDelete}`);
    }
    if (fks.length !== model.foreignKeys.reduce((n, f) => n + f.columns.length, 0))
      problems.push(`${model.name}: ${fks.length} foreign key columns in the database, schema has ${model.foreignKeys.length}`);
  }
  const modelNames = new Set(models.map((m) => m.name));
  for (const t of shape.tables) {
    if (modelNames.has(t) || t.startsWith("sqlite_") || INTERNAL_TABLES.has(t) || /^(EpisodeSearch|TurnSearch|EpisodeText)(_|$)/.test(t)) continue;
    problems.push(`table ${t} is not in the schema`);
  }
  return problems;
}

/** A SQLite database's shape, from its PRAGMAs. */
function sqliteShape(db: Database.Database): DatabaseShape {
  const tables = new Set((db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>).map((r) => r.name));
  const shape: DatabaseShape = { tables, columns: new Map(), indexes: new Map(), foreignKeys: new Map() };
  for (const t of tables) {
    if (t.startsWith("sqlite_") || /^(EpisodeSearch|TurnSearch|EpisodeText)/.test(t)) continue;
    const cols = db.prepare(`PRAGMA table_info("${t}")`).all() as Array<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>;
    shape.columns.set(
      t,
      cols.map((c) => ({ name: c.name, type: c.type, notNull: c.notnull === 1, hasDefault: c.dflt_value !== null, pk: c.pk === 1 })),
    );
    const idx = (db.prepare(`PRAGMA index_list("${t}")`).all() as Array<{ name: string; unique: number; origin: string }>).filter((i) => i.origin === "c");
    shape.indexes.set(
      t,
      idx.map((i) => ({
        name: i.name,
        unique: i.unique === 1,
        columns: (db.prepare(`PRAGMA index_info("${i.name}")`).all() as Array<{ name: string | null }>).map((r) => r.name ?? "(expression)"),
      })),
    );
    const fks = db.prepare(`PRAGMA foreign_key_list("${t}")`).all() as Array<{ table: string; from: string; on_delete: string }>;
    shape.foreignKeys.set(
      t,
      fks.map((f) => ({ table: f.table, from: f.from, onDelete: f.on_delete })),
    );
  }
  return shape;
}

const PG_ON_DELETE: Record<string, string> = { a: "NO ACTION", r: "RESTRICT", c: "CASCADE", n: "SET NULL", d: "SET DEFAULT" };

/** A PostgreSQL schema's shape, from its catalogs (the schema on the connection's search path). */
async function postgresShape(sql: { all<T>(q: string, p?: readonly unknown[]): Promise<T[]> }): Promise<DatabaseShape> {
  const tables = new Set(
    (await sql.all<{ name: string }>(`SELECT c.relname AS name FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace`)).map(
      (r) => r.name,
    ),
  );
  const shape: DatabaseShape = { tables, columns: new Map(), indexes: new Map(), foreignKeys: new Map() };
  const cols = await sql.all<{ t: string; name: string; type: string; notnull: number; def: string | null; pk: number }>(
    `SELECT c.relname AS t, a.attname AS name, upper(format_type(a.atttypid, a.atttypmod)) AS type, a.attnotnull AS notnull, pg_get_expr(d.adbin, d.adrelid) AS def,
            EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisprimary AND a.attnum = ANY(i.indkey)) AS pk
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace AND a.attnum > 0 AND NOT a.attisdropped ORDER BY c.relname, a.attnum`,
  );
  for (const c of cols) {
    const list = shape.columns.get(c.t) ?? [];
    // SERIAL's sequence default is Prisma's autoincrement(), which the schema counts as no default.
    const serial = c.def?.startsWith("nextval(");
    list.push({
      name: c.name,
      type: serial && c.type === "INTEGER" ? "INTEGER" : c.type,
      notNull: Boolean(c.notnull),
      hasDefault: c.def !== null && !serial,
      pk: Boolean(c.pk),
    });
    shape.columns.set(c.t, list);
  }
  const idx = await sql.all<{ t: string; name: string; unique: number; columns: string[] }>(
    `SELECT t.relname AS t, ic.relname AS name, i.indisunique AS "unique",
            ARRAY(SELECT COALESCE(a.attname::text, '(expression)') FROM unnest(i.indkey) WITH ORDINALITY k(n, o) LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.n ORDER BY k.o) AS columns
     FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid
     WHERE t.relnamespace = current_schema()::regnamespace AND NOT i.indisprimary`,
  );
  for (const i of idx) {
    const list = shape.indexes.get(i.t) ?? [];
    list.push({ name: i.name, unique: Boolean(i.unique), columns: i.columns });
    shape.indexes.set(i.t, list);
  }
  const fks = await sql.all<{ t: string; ref: string; col: string; del: string }>(
    `SELECT c.relname AS t, r.relname AS ref, a.attname AS col, k.confdeltype AS del
     FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class r ON r.oid = k.confrelid
     JOIN LATERAL unnest(k.conkey) AS u(n) ON true JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = u.n
     WHERE k.contype = 'f' AND c.relnamespace = current_schema()::regnamespace`,
  );
  for (const f of fks) {
    const list = shape.foreignKeys.get(f.t) ?? [];
    list.push({ table: f.ref, from: f.col, onDelete: PG_ON_DELETE[f.del] ?? f.del });
    shape.foreignKeys.set(f.t, list);
  }
  return shape;
}

/** Reads the schema file and compares it with a migrated SQLite database; returns every mismatch found. */
export function compareSchemaWithDatabase(schemaPath: string, db: Database.Database): string[] {
  return compareSchemaWithShape(parsePrismaSchema(fs.readFileSync(schemaPath, "utf8")), sqliteShape(db), "sqlite");
}

/** The same for a migrated PostgreSQL schema. */
export async function compareSchemaWithPostgres(schemaPath: string, sql: { all<T>(q: string, p?: readonly unknown[]): Promise<T[]> }): Promise<string[]> {
  return compareSchemaWithShape(parsePrismaSchema(fs.readFileSync(schemaPath, "utf8")), await postgresShape(sql), "postgresql");
}
