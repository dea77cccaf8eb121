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

const SQL_TYPE: Record<string, string> = { String: "TEXT", Int: "INTEGER", Float: "REAL", Boolean: "BOOLEAN", DateTime: "DATETIME", BigInt: "BIGINT", Bytes: "BLOB", Decimal: "DECIMAL", Json: "JSONB" };
const ON_DELETE: Record<string, string> = { Cascade: "CASCADE", SetNull: "SET NULL", Restrict: "RESTRICT", NoAction: "NO ACTION", SetDefault: "SET DEFAULT" };

function list(s: string): string[] {
  return s.split(",").map((x) => x.trim()).filter(Boolean);
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

/** Tables the migrations create outside the Prisma schema: the migration ledger and the FTS switch. */
const INTERNAL_TABLES = new Set(["_studio_migrations", "_FtsControl"]);

/** Reads the schema file and compares it with a migrated database; returns every mismatch found. */
export function compareSchemaWithDatabase(schemaPath: string, db: Database.Database): string[] {
  const problems: string[] = [];
  const models = parsePrismaSchema(fs.readFileSync(schemaPath, "utf8"));
  const tables = new Set(
    (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>).map((r) => r.name),
  );
  for (const model of models) {
    if (!tables.has(model.name)) {
      problems.push(`table ${model.name} is missing`);
      continue;
    }
    const cols = db.prepare(`PRAGMA table_info("${model.name}")`).all() as Array<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>;
    const byName = new Map(cols.map((c) => [c.name, c]));
    for (const f of model.fields) {
      const c = byName.get(f.name);
      if (!c) {
        problems.push(`${model.name}.${f.name}: column missing`);
        continue;
      }
      if (c.type.toUpperCase() !== f.type) problems.push(`${model.name}.${f.name}: type ${c.type}, schema says ${f.type}`);
      const notNull = c.notnull === 1 || c.pk === 1;
      if (notNull === f.optional) problems.push(`${model.name}.${f.name}: ${notNull ? "NOT NULL" : "nullable"} in the database, schema says ${f.optional ? "optional" : "required"}`);
      if ((c.pk === 1) !== f.id) problems.push(`${model.name}.${f.name}: primary key mismatch`);
      if ((c.dflt_value !== null) !== f.hasDefault) problems.push(`${model.name}.${f.name}: default ${c.dflt_value ?? "none"} in the database, schema ${f.hasDefault ? "has one" : "has none"}`);
    }
    for (const c of cols) if (!model.fields.some((f) => f.name === c.name)) problems.push(`${model.name}.${c.name}: column not in the schema`);

    const dbIndexes = (db.prepare(`PRAGMA index_list("${model.name}")`).all() as Array<{ name: string; unique: number; origin: string }>).filter(
      (i) => i.origin === "c",
    );
    for (const idx of model.indexes) {
      const found = dbIndexes.find((i) => i.name === idx.name);
      if (!found) {
        problems.push(`index ${idx.name} is missing`);
        continue;
      }
      const cols2 = (db.prepare(`PRAGMA index_info("${idx.name}")`).all() as Array<{ name: string }>).map((r) => r.name);
      if (cols2.join(",") !== idx.columns.join(",")) problems.push(`index ${idx.name}: columns ${cols2.join(",")}, schema says ${idx.columns.join(",")}`);
      if ((found.unique === 1) !== idx.unique) problems.push(`index ${idx.name}: uniqueness differs`);
    }
    for (const i of dbIndexes) if (!model.indexes.some((x) => x.name === i.name)) problems.push(`index ${i.name} is not in the schema`);

    const fks = db.prepare(`PRAGMA foreign_key_list("${model.name}")`).all() as Array<{ id: number; table: string; from: string; to: string; on_delete: string }>;
    for (const fk of model.foreignKeys) {
      const hit = fks.filter((r) => r.table === fk.table && fk.columns.includes(r.from));
      if (hit.length !== fk.columns.length) problems.push(`${model.name}: foreign key (${fk.columns}) → ${fk.table} is missing`);
      else if (hit.some((r) => r.on_delete !== fk.onDelete)) problems.push(`${model.name}: foreign key (${fk.columns}) ON DELETE ${hit[0].on_delete}, schema says ${fk.onDelete}`);
    }
    if (fks.length !== model.foreignKeys.reduce((n, f) => n + f.columns.length, 0)) problems.push(`${model.name}: ${fks.length} foreign key columns in the database, schema has ${model.foreignKeys.length}`);
  }
  const modelNames = new Set(models.map((m) => m.name));
  for (const t of tables) {
    if (modelNames.has(t) || t.startsWith("sqlite_") || INTERNAL_TABLES.has(t) || /^(EpisodeSearch|TurnSearch|EpisodeText)(_|$)/.test(t)) continue;
    problems.push(`table ${t} is not in the schema`);
  }
  return problems;
}
