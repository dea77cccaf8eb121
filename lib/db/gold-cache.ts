import "server-only";
import { withPrisma } from "./client";
import type { GoldCache } from "./generated/client";
import { columnsOf, recordParser, selectAll } from "./rows";
import { withSql } from "./sql";

export type { GoldCache } from "./generated/client";

const goldCacheRecord = recordParser("GoldCache", columnsOf("GoldCache"));

/**
 * A row's key: the task, and `variant` ("" for gold's output as the replay shows it; bash's score
 * cache keys its rows by the backend and image gold ran on, lib/env/bash-gold.ts).
 */
export interface GoldCacheKey {
  environment: string;
  dataset: string;
  taskId: string;
  variant?: string;
}

/** The cached output of a task's gold solution, or null. */
export async function getGoldCacheByTask({ environment, dataset, taskId, variant = "" }: GoldCacheKey): Promise<GoldCache | null> {
  return withSql(async (sql) => {
    const row = await sql.get(
      `SELECT ${selectAll("GoldCache")} FROM "GoldCache" WHERE "environment" = ? AND "dataset" = ? AND "taskId" = ? AND "variant" = ?`,
      [environment, dataset, taskId, variant],
    );
    return row ? goldCacheRecord.one(row) : null;
  });
}

/** Stores (or replaces) a task's gold output. */
export async function putGoldCache(input: GoldCacheKey & { observation: string; details?: unknown }): Promise<GoldCache> {
  const details = input.details === undefined ? null : JSON.stringify(input.details);
  const { environment, dataset, taskId, observation } = input;
  const variant = input.variant ?? "";
  return withPrisma((prisma) =>
    prisma.goldCache.upsert({
      where: { environment_dataset_taskId_variant: { environment, dataset, taskId, variant } },
      create: { environment, dataset, taskId, variant, observation, details },
      update: { observation, details, createdAt: new Date() },
    }),
  );
}
