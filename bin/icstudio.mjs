#!/usr/bin/env node
// Entry point for the installed `icstudio` command: runs the TypeScript CLI through tsx in this
// same process (a second Node process, as `node --import tsx` from here would start, costs about
// 0.15 s of CPU on every command).
await import("tsx");
await import("../scripts/hooks.mjs");
await import("../lib/cli/main.ts");
