import "server-only";
import os from "node:os";
import { ConflictError, NotFoundError } from "@/lib/errors";
import { withPrisma } from "./client";
import type { Run } from "./generated/client";
import { withWriteLock } from "./lock";
import { columnsOf, recordParser, rowParser, selectAll } from "./rows";
import { withSql } from "./sql";

export type { Run } from "./generated/client";

const runRecord = recordParser("Run", columnsOf("Run"));
const SELECT = `SELECT ${selectAll("Run")} FROM "Run"`;

async function getRunWhere(column: "id" | "name", value: string): Promise<Run | null> {
  return withSql(async (sql) => {
    const row = await sql.get(`${SELECT} WHERE "${column}" = ?`, [value]);
    return row ? runRecord.one(row) : null;
  });
}

/** Creates a pending batch run; its name must be unique. */
export async function createRun({ name, config, total = 0 }: { name: string; config: unknown; total?: number }): Promise<Run> {
  return withPrisma(async (prisma) => {
    try {
      return await prisma.run.create({ data: { name, config: JSON.stringify(config), total } });
    } catch (err) {
      if ((err as { code?: string }).code === "P2002") throw new ConflictError(`a run named ${JSON.stringify(name)} already exists`);
      throw err;
    }
  });
}

export async function getRunById({ id }: { id: string }): Promise<Run | null> {
  return getRunWhere("id", id);
}

export async function getRunByName({ name }: { name: string }): Promise<Run | null> {
  return getRunWhere("name", name);
}

/** Runs, newest first. */
export async function listRuns({ limit = 100 }: { limit?: number } = {}): Promise<Run[]> {
  return withSql(async (sql) => runRecord.all(await sql.all(`${SELECT} ORDER BY "createdAt" DESC LIMIT ?`, [limit])));
}

/** This process, as a run's `owner` names it. */
const THIS_PROCESS = `${os.hostname()}:${process.pid}`;

/** The owner of a run handed to a queue's workers: `queue <redacted url>#<queue name>`. */
const QUEUE_OWNER_PREFIX = "queue ";

/** The `owner` of a run handed to a queue, from the queue's (redacted) address and name. */
export function queueOwnerOf(queue: string): string {
  return `${QUEUE_OWNER_PREFIX}${queue}`;
}

/** Whether a run's owner is a queue (its workers play its episodes, not this process). */
export function isQueueOwner(owner: string | null | undefined): boolean {
  return Boolean(owner?.startsWith(QUEUE_OWNER_PREFIX));
}

/** A Prisma filter on episodes: not part of a run handed to a queue. */
export const NOT_QUEUED_EPISODE = {
  OR: [{ runId: null }, { run: { owner: null } }, { run: { NOT: { owner: { startsWith: QUEUE_OWNER_PREFIX } } } }],
};

/**
 * Whether the process named by a run's `owner` is alive (a run left "running" by a crash has an
 * owner that is gone). Another machine's process counts as alive: it cannot be checked from here;
 * so does a queue (its workers come and go; the jobs wait in Redis).
 */
export function isOwnerAlive(owner: string | null): boolean {
  if (!owner) return false;
  if (isQueueOwner(owner)) return true;
  const i = owner.lastIndexOf(":");
  const host = owner.slice(0, i);
  const pid = Number(owner.slice(i + 1));
  if (host !== os.hostname()) return true;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Sets a run's status (pending, running, done, failed, cancelled), stamping start and end times;
 * a running run is owned by this process until it ends.
 */
export async function updateRunStatus({
  id,
  status,
}: {
  id: string;
  status: "pending" | "running" | "done" | "failed" | "cancelled" | "interrupted";
}): Promise<Run> {
  return withPrisma(async (prisma) => {
    try {
      return await prisma.run.update({
        where: { id },
        data: {
          status,
          ...(status === "running" ? { startedAt: new Date(), endedAt: null, owner: THIS_PROCESS } : {}),
          ...(["done", "failed", "cancelled", "interrupted"].includes(status) ? { endedAt: new Date(), owner: null } : {}),
        },
      });
    } catch (err) {
      if ((err as { code?: string }).code === "P2025") throw new NotFoundError(`run ${id}`);
      throw err;
    }
  });
}

/**
 * Hands a run to a queue: running, owned by the queue (`owner` from QUEUE_OWNER_PREFIX) instead
 * of this process, started now unless it had started before.
 */
export async function markRunQueued({ id, owner }: { id: string; owner: string }): Promise<Run> {
  const run = await getRunById({ id });
  if (!run) throw new NotFoundError(`run ${id}`);
  return withPrisma((prisma) =>
    prisma.run.update({ where: { id }, data: { status: "running", owner, endedAt: null, startedAt: run.startedAt ?? new Date() } }),
  );
}

/** Adds one finished episode to a run's counts. */
export async function recordRunEpisode({ id, solved, errored }: { id: string; solved: boolean; errored: boolean }): Promise<Run> {
  return withWriteLock(() =>
    withPrisma((prisma) =>
      prisma.run.update({
        where: { id },
        data: { done: { increment: 1 }, solved: { increment: solved ? 1 : 0 }, errors: { increment: errored ? 1 : 0 } },
      }),
    ),
  );
}

const runOwner = rowParser("Run", ["id", "owner"]);

/**
 * Marks runs left "running" by a process that has died (killed, crashed) interrupted, as the
 * start-up sweep does for episodes; runs handed to a queue, or owned by a live process or one on
 * another machine, are left alone. Returns how many.
 */
export async function markInterruptedRuns(): Promise<number> {
  const running = await withSql(async (sql) => runOwner.all(await sql.all(`SELECT "id", "owner" FROM "Run" WHERE "status" = 'running'`)));
  const dead = running.filter((r) => !isOwnerAlive(r.owner)).map((r) => r.id);
  if (!dead.length) return 0;
  return withPrisma(
    async (prisma) =>
      (await prisma.run.updateMany({ where: { id: { in: dead }, status: "running" }, data: { status: "interrupted", owner: null, endedAt: new Date() } }))
        .count,
  );
}
