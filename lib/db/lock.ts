import type { MessagePort, Worker } from "node:worker_threads";

/**
 * One writer at a time inside this process. Prisma's transactions are asynchronous (BEGIN, then
 * awaited statements) while the bulk importer writes synchronously on a second connection; if
 * the importer started while a Prisma transaction was open it would block the event loop waiting
 * for a lock that cannot be released. Every multi-statement write in lib/db goes through here.
 *
 * The lock is the process's, not a module's: the custom server and the Next.js route bundles load
 * their own copies of this file, so its state lives on globalThis. A worker thread that writes
 * (the upload importer, lib/trajectories/upload-import.ts) borrows the main thread's lock for each
 * write, so its transaction never meets a writer of the main thread.
 */
interface LockState {
  tail: Promise<unknown>;
  /** In a worker thread that borrows its parent's lock: asks for it, runs, gives it back. */
  parent?: (fn: () => Promise<unknown>) => Promise<unknown>;
}
const state: LockState = ((globalThis as Record<string, unknown>).__icStudioWriteLock ??= { tail: Promise.resolve() }) as LockState;

export function withWriteLock<T>(fn: () => Promise<T> | T): Promise<T> {
  const parent = state.parent;
  const body = parent ? () => parent(async () => fn()) as Promise<T> : fn;
  const run = state.tail.then(body, body);
  state.tail = run.catch(() => undefined);
  return run;
}

type LockMessage = { icWriteLock: "acquire" | "release" | "granted"; key: number };
const isLockMessage = (m: unknown): m is LockMessage => typeof m === "object" && m !== null && "icWriteLock" in m;

/** In a worker thread: every withWriteLock here first takes the parent thread's lock (see lendWriteLock). */
export function borrowParentWriteLock(port: MessagePort): void {
  let next = 0;
  const granted = new Map<number, () => void>();
  port.on("message", (m: unknown) => {
    if (isLockMessage(m) && m.icWriteLock === "granted") granted.get(m.key)?.();
  });
  state.parent = async (fn) => {
    const key = next++;
    await new Promise<void>((resolve) => {
      granted.set(key, resolve);
      port.postMessage({ icWriteLock: "acquire", key } satisfies LockMessage);
    });
    granted.delete(key);
    try {
      return await fn();
    } finally {
      port.postMessage({ icWriteLock: "release", key } satisfies LockMessage);
    }
  };
}

/** In the parent thread: lends this process's write lock to a worker that borrows it; a worker that exits gives back what it held. */
export function lendWriteLock(worker: Worker): void {
  const held = new Map<number, () => void>();
  worker.on("message", (m: unknown) => {
    if (!isLockMessage(m)) return;
    if (m.icWriteLock === "release") {
      held.get(m.key)?.();
      held.delete(m.key);
    } else if (m.icWriteLock === "acquire") {
      void withWriteLock(
        () =>
          new Promise<void>((release) => {
            held.set(m.key, release);
            worker.postMessage({ icWriteLock: "granted", key: m.key } satisfies LockMessage);
          }),
      );
    }
  });
  worker.on("exit", () => {
    for (const release of held.values()) release();
    held.clear();
  });
}
