#!/usr/bin/env node
// Entry point for the installed `icstudio` command: runs the TypeScript CLI through tsx.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const result = spawnSync(
  process.execPath,
  ["--import", "tsx", "--import", path.join(root, "scripts/hooks.mjs"), path.join(root, "lib/cli/main.ts"), ...process.argv.slice(2)],
  { stdio: "inherit" },
);
process.exit(result.status ?? 1);
