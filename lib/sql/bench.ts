import "server-only";
import Database from "better-sqlite3";
import type { SqlEngine } from "./types";

/** Median and 95th percentile (nearest rank) of samples in milliseconds. */
export interface Latency {
  median: number;
  p95: number;
  n: number;
}

function latency(samples: number[]): Latency {
  const s = [...samples].sort((a, b) => a - b);
  const rank = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
  return { median: rank(0.5), p95: rank(0.95), n: s.length };
}

export interface SqlBenchResult {
  engine: string;
  db: string;
  /** Opening a fresh copy of the database (an episode's reset), with closing the previous one. */
  reset: Latency;
  /** One action through a session (`query`). */
  step: Latency;
  /** The same query on a plain in-process better-sqlite3 connection: the bare baseline. */
  baseline: Latency;
}

/**
 * Measures an engine's reset and step latency on `db` beside a plain better-sqlite3 query on the
 * same data (loaded from the engine's image when it is the SQLite engine, else a tiny table).
 */
export async function benchSql(options: { engine: SqlEngine; db?: string; query?: string; iterations?: number; image?: Buffer }): Promise<SqlBenchResult> {
  const { engine } = options;
  const db = options.db ?? "world_1";
  const query = options.query ?? "SELECT Name, Population FROM city WHERE CountryCode = 'NLD' ORDER BY Population DESC LIMIT 5";
  const n = options.iterations ?? 50;

  // Warm-up: conversion, pool, caches.
  let session = await engine.open(db);
  await session.query(query);

  const resets: number[] = [];
  const steps: number[] = [];
  for (let i = 0; i < n; i++) {
    let t = performance.now();
    await session.close();
    session = await engine.open(db);
    resets.push(performance.now() - t);
    t = performance.now();
    const r = await session.query(query);
    steps.push(performance.now() - t);
    if (!r.ok) throw new Error(`bench query failed on ${engine.id}: ${r.error}`);
  }
  await session.close();

  const plain = options.image ? new Database(options.image) : new Database(":memory:");
  let baseQuery = query;
  if (!options.image) {
    plain.exec("CREATE TABLE city (Name TEXT, Population INTEGER, CountryCode TEXT); INSERT INTO city VALUES ('Amsterdam', 731200, 'NLD'), ('Rotterdam', 593321, 'NLD')");
    baseQuery = "SELECT Name, Population FROM city WHERE CountryCode = 'NLD' ORDER BY Population DESC LIMIT 5";
  }
  const base: number[] = [];
  for (let i = 0; i < n * 4; i++) {
    const t = performance.now();
    plain.prepare(baseQuery).raw(true).all();
    base.push(performance.now() - t);
  }
  plain.close();
  return { engine: engine.id, db, reset: latency(resets), step: latency(steps), baseline: latency(base) };
}
