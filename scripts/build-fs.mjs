// Builds the bash task file systems from their manifests (datasets/bash/<name>.json) into
// var/fs/<name>/, skipping those already up to date. Usage:
//   node --import tsx --import ./scripts/hooks.mjs scripts/build-fs.mjs [name ...]
import { ensureFileSystem, listFileSystems } from "../lib/datasets/bash-fs.ts";

const names = process.argv.slice(2).length ? process.argv.slice(2) : await listFileSystems();
for (const name of names) {
  const started = Date.now();
  const dir = await ensureFileSystem(name);
  process.stdout.write(`${name}: ${dir} (${Date.now() - started} ms)\n`);
}
