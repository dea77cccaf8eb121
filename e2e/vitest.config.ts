import { defineConfig } from "vitest/config";
import path from "node:path";

const root = path.resolve(__dirname, "..");

/**
 * Browser tests: Playwright (playwright-core) driving Debian's chromium against the real server
 * (a production build, a temporary database, the local sandbox). `global-setup.ts` builds when
 * needed and starts the server once; tests that need other settings start their own.
 */
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@\/(.*)$/, replacement: path.join(root, "$1") },
      { find: /^server-only$/, replacement: path.join(root, "node_modules/server-only/empty.js") },
    ],
  },
  test: {
    root,
    include: ["e2e/**/*.test.ts"],
    globalSetup: ["e2e/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 900_000,
    pool: "forks",
    // One browser and one server at a time on a 2-core machine.
    fileParallelism: false,
    retry: process.env.CI ? 1 : 0,
  },
});
