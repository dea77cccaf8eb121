/**
 * Task addresses in URLs and websocket messages.
 *
 * A task is addressed as `<dataset>:<id>`, with `id` exactly as the dataset names it (InterCode's
 * task_id, or its index as a string for sets without ids), e.g. `spider-dev:12` or
 * `demo-bash:find-logs`. In a URL the ref is one path segment, percent-encoded with
 * encodeURIComponent (so ids holding "/" or spaces still fit): `/play/sql/spider-dev:12`.
 * A ref without a dataset (`/play/bash/find-logs`) means the environment's default dataset.
 *
 * Shared by the browser and the server: no server-only imports.
 */

export interface TaskRef {
  dataset: string | null;
  id: string;
}

/** Splits `<dataset>:<id>` at the first colon. Dataset names never hold a colon; ids may. */
export function parseTaskRef(ref: string): TaskRef {
  const i = ref.indexOf(":");
  if (i <= 0) return { dataset: null, id: ref };
  return { dataset: ref.slice(0, i), id: ref.slice(i + 1) };
}

export function formatTaskRef(dataset: string, id: string): string {
  return `${dataset}:${id}`;
}

/** The playground URL of a task. */
export function playUrl(env: string, dataset: string, id: string): string {
  return `/play/${encodeURIComponent(env)}/${encodeURIComponent(formatTaskRef(dataset, id))}`;
}

/** Where a model plays a task while you watch (and may take over): the agent view. */
export function agentUrl(env: string, dataset: string, id: string): string {
  return `${playUrl(env, dataset, id)}?agent=1`;
}
