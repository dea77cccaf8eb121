// Entry of the upload importer's thread. A worker thread starts without its parent's loaders, so
// it registers the project's resolve hooks (server-only) and tsx, then runs upload-worker.ts.
await import("../../scripts/hooks.mjs");
const { register } = await import("tsx/esm/api");
register();
await import("./upload-worker.ts");
