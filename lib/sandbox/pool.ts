import "server-only";
import { config } from "@/lib/config";
import type { Limits } from "./limits";
import { registerResource, type ResourceHandle } from "./reaper";
import type { SandboxSpec } from "./types";

/**
 * The warm-pool key of a spec. A whole-root file system (bash) is laid out before the sandbox
 * starts, so it is part of the key; other task files (a CTF task's /ctf) go in after the sandbox
 * is taken (see `filesAfterTake`), so one pool serves every task of an image.
 */
export function poolKey(spec: SandboxSpec, limits: Limits): string {
  const atRoot = spec.files?.mountAt === "/";
  return JSON.stringify([spec.image, atRoot ? spec.files!.hostDir : null, spec.files?.mountAt, spec.workdir, limits]);
}

type TaskFiles = NonNullable<SandboxSpec["files"]>;

/**
 * How both backends pack a task's files (GNU tar): in name order, so every copy makes its entries
 * in the same order and lists them so; POSIX format, whose headers carry the access time too; read
 * without touching the host copy's access times.
 */
export const TASK_TAR_ARGS = ["--sort=name", "--format=posix", "--atime-preserve=system"];

/** The task files a backend puts into a sandbox once it is taken from the pool, if any. */
export function filesAfterTake(spec: SandboxSpec): TaskFiles | null {
  return spec.files && spec.files.mountAt !== "/" ? spec.files : null;
}

/** A pooled sandbox that can be handed a task's files after it leaves the pool. */
export interface FilesTarget extends Poolable {
  loadFiles(files: TaskFiles): Promise<void>;
}

/**
 * Takes a sandbox for `spec` from `pool` (keyed by poolKey) and puts in the task files that are
 * not part of the pooled sandbox (filesAfterTake); a sandbox that fails to take them is closed.
 */
export async function takeForSpec<T extends FilesTarget>(pool: WarmPool<T>, spec: SandboxSpec, limits: Limits, start: () => Promise<T>): Promise<T> {
  const sandbox = await pool.take(poolKey(spec, limits), start);
  const files = filesAfterTake(spec);
  if (files) {
    try {
      await sandbox.loadFiles(files);
    } catch (err) {
      await sandbox.close();
      throw err;
    }
  }
  return sandbox;
}

/** What the pool needs of a sandbox: whether it died while waiting, and how to free it. */
export interface Poolable {
  readonly broken: boolean;
  close(): Promise<void>;
  /** Whether the sandbox keeps the Node process alive: not while it waits in the pool. */
  hold(active: boolean): void;
}

/**
 * Started sandboxes kept ready per key (image, files, limits), so a reset takes one instead of
 * starting one. `take` hands out a ready one (or starts one when none is) and refills in the
 * background; a sandbox that died while waiting is dropped. A waiting sandbox is in the resource
 * registry (lib/sandbox/reaper.ts), owned by the pool: unused past `idleMs` (IC_HELPER_IDLE_MS),
 * the reaper closes it and takes it out of the pool (the next take starts one and refills).
 */
export class WarmPool<T extends Poolable> {
  private readonly pools = new Map<string, Promise<T>[]>();
  private readonly waiting = new Map<T, ResourceHandle>();
  private stopped = false;

  constructor(
    private readonly size: number,
    private readonly idleMs: number = config().helperIdleMs,
  ) {}

  async take(key: string, start: () => Promise<T>): Promise<T> {
    this.stopped = false;
    const pool = this.pools.get(key);
    while (pool?.length) {
      const candidate = await pool.shift()!.catch(() => null);
      if (candidate) this.unregister(candidate);
      if (candidate && !candidate.broken) {
        candidate.hold(true);
        this.fill(key, start);
        return candidate;
      }
      await candidate?.close();
    }
    const fresh = await start();
    this.fill(key, start);
    return fresh;
  }

  private fill(key: string, start: () => Promise<T>): void {
    if (this.stopped || this.size <= 0) return;
    const pool = this.pools.get(key) ?? [];
    this.pools.set(key, pool);
    const owner = `pool:${poolLabel(key)}`;
    while (pool.length < this.size) {
      const p: Promise<T> = start().then((s) => {
        s.hold(false);
        const end = async () => {
          this.waiting.delete(s);
          const i = pool.indexOf(p);
          // Already taken (take shifted it out before the reaper ran): its taker owns it now.
          if (i < 0) return;
          pool.splice(i, 1);
          await s.close();
        };
        this.waiting.set(s, registerResource({ kind: "sandbox", owner, idleMs: this.idleMs, end }));
        return s;
      });
      p.catch(() => {
        const i = pool.indexOf(p);
        if (i >= 0) pool.splice(i, 1);
      });
      pool.push(p);
    }
  }

  private unregister(s: T): void {
    this.waiting.get(s)?.release();
    this.waiting.delete(s);
  }

  /** Forgets every waiting sandbox without closing it (its engine is gone). */
  forget(): void {
    this.pools.clear();
    for (const r of this.waiting.values()) r.release();
    this.waiting.clear();
  }

  /** Closes every waiting sandbox; later `take`s start filling again. */
  async drain(): Promise<void> {
    this.stopped = true;
    const all = [...this.pools.values()].flat();
    this.pools.clear();
    await Promise.all(
      all.map((p) =>
        p
          .then((s) => {
            this.unregister(s);
            return s.close();
          })
          .catch(() => undefined),
      ),
    );
  }
}

/** A pool key (poolKey) in words: its image and root file system. */
function poolLabel(key: string): string {
  try {
    const [image, root] = JSON.parse(key) as [unknown, unknown];
    return root ? `${String(image)} ${String(root)}` : String(image);
  } catch {
    return key;
  }
}
