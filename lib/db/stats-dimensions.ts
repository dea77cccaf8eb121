// Client-safe: no server code, so pages and client components can name a dimension.

/** Columns the statistics can group by, by their public name. */
export const STATS_DIMENSIONS = {
  env: "environment",
  dataset: "dataset",
  model: "model",
  policy: "policy",
  hardness: "hardness",
  /** The SQL database or bash file system. */
  db: "db",
  actor: "playerKind",
  annotator: "annotator",
  turnLimit: "turnLimit",
  run: "runId",
  status: "status",
  task: "taskId",
} as const;
export type StatsDimension = keyof typeof STATS_DIMENSIONS;
