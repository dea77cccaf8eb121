import "server-only";
import { getPrisma } from "./client";
import { markInterruptedEpisodes } from "./episodes";
import { markInterruptedRuns } from "./runs";

/**
 * What the server calls once at start: opens the store IC_DB names (creating a SQLite file if
 * needed; refusing an unreachable PostgreSQL server with a message naming it), applies pending
 * migrations (refusing to start if an applied one was edited), connects the Prisma client, and
 * marks episodes and runs a crash left running as interrupted so they can be resumed.
 */
export async function initStore(): Promise<{ interrupted: number }> {
  await openStore();
  await markInterruptedRuns();
  return { interrupted: await markInterruptedEpisodes() };
}

/**
 * Opens the store and applies pending migrations, without the start-up sweep: for a process that
 * shares the store with others running episodes (a queue worker), and does it before its first
 * job rather than under one.
 * @throws StorageError or BadInputError naming the store when it cannot be opened.
 */
export async function openStore(): Promise<void> {
  await getPrisma();
}
