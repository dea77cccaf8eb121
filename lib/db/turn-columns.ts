/**
 * The Turn columns every raw INSERT writes, in the order of its positional parameters: the live
 * path (appendTurn) and the bulk importer bind their values in this order.
 */
export const TURN_INSERT_COLUMNS = [
  "episodeId",
  "index",
  "actor",
  "action",
  "observation",
  "ok",
  "reward",
  "rawReply",
  "thought",
  "tokensIn",
  "tokensOut",
  "durationMs",
  "latencyMs",
  "costUsd",
  "source",
  "timedOut",
  "aborted",
  "startedAt",
  "createdAt",
] as const;
