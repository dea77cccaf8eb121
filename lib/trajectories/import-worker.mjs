// Entry of the import's reading thread. A worker thread starts without its parent's TypeScript
// loader (whether the parent ran through `node --import tsx`, bin/icstudio.mjs or Vitest), so it
// registers tsx itself and then runs the worker's TypeScript (import-worker.ts).
const { register } = await import("tsx/esm/api");
register();
await import("./import-worker.ts");
