// Generates the Prisma client into lib/db/generated (run by `postinstall`, so `npm ci` does it).
// The Prisma CLI wants to download a native schema engine first, which fails offline; `generate`
// never uses that engine, so point the CLI at any executable instead of letting it fetch one.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
let cli;
try {
  cli = require.resolve("prisma/build/index.js", { paths: [root] });
} catch {
  console.error("prisma-generate: the prisma package is not installed; skipping client generation");
  process.exit(0);
}
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = process.platform === "win32" ? process.execPath : "/bin/true";
const result = spawnSync(process.execPath, [cli, "generate", "--schema", path.join(root, "prisma/schema.prisma")], {
  cwd: root,
  env,
  stdio: "inherit",
});
process.exit(result.status ?? 1);
