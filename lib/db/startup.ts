import "server-only";
import { getPrisma } from "./client";
import { markInterruptedEpisodes } from "./episodes";
import { getRawDb } from "./sqlite";

/**
 * What the server calls once at start: opens the database (creating it under IC_DB if needed),
 * applies pending migrations (refusing to start if an applied one was edited), connects the
 * Prisma client, and marks episodes a crash left running as interrupted so they can be resumed.
 */
export async function initStore(): Promise<{ interrupted: number }> {
  getRawDb();
  await getPrisma();
  return { interrupted: await markInterruptedEpisodes() };
}
