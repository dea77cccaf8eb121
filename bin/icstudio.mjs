#!/usr/bin/env node
// Entry point for the installed `icstudio` command (and `npm run icstudio`). Runs the CLI compiled
// to JavaScript (scripts/cli-bundle.mjs: built on first use and again after any of its sources
// changed), in this same process. A build that fails (say, a syntax error) falls back to running the
// TypeScript through tsx, with a warning; tsx's loader costs about 1.2 s of CPU on every start.
// (Tests and tools that want tsx run `node --import tsx --import ./scripts/hooks.mjs lib/cli/main.ts`.)
import { buildBundle, freshBundle } from "../scripts/cli-bundle.mjs";

async function bundledEntry() {
  const fresh = freshBundle();
  if (fresh) return fresh;
  try {
    return await buildBundle();
  } catch (err) {
    process.stderr.write(`icstudio: building the CLI failed, running it through tsx: ${String(err?.message ?? err).split("\n")[0]}\n`);
    return null;
  }
}

const entry = await bundledEntry();
if (entry) {
  await import(entry);
} else {
  await import("tsx");
  await import("../scripts/hooks.mjs");
  await import("../lib/cli/main.ts");
}
