import "server-only";
import { withPrisma } from "./client";
import type { GoldCache } from "./generated/client";

export type { GoldCache } from "./generated/client";

/** The cached output of a task's gold solution, or null. */
export async function getGoldCacheByTask({ environment, dataset, taskId }: { environment: string; dataset: string; taskId: string }): Promise<GoldCache | null> {
  return withPrisma((prisma) => prisma.goldCache.findUnique({ where: { environment_dataset_taskId: { environment, dataset, taskId } } }));
}

/** Stores (or replaces) a task's gold output. */
export async function putGoldCache(input: { environment: string; dataset: string; taskId: string; observation: string; details?: unknown }): Promise<GoldCache> {
  const details = input.details === undefined ? null : JSON.stringify(input.details);
  const { environment, dataset, taskId, observation } = input;
  return withPrisma((prisma) =>
    prisma.goldCache.upsert({
      where: { environment_dataset_taskId: { environment, dataset, taskId } },
      create: { environment, dataset, taskId, observation, details },
      update: { observation, details, createdAt: new Date() },
    }),
  );
}
