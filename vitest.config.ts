import { defineConfig } from "vitest/config";
import path from "node:path";

/** Unit and integration tests: `*.test.ts` beside the code they test. */
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@\/(.*)$/, replacement: path.resolve(__dirname, "$1") },
      { find: /^server-only$/, replacement: path.resolve(__dirname, "node_modules/server-only/empty.js") },
    ],
  },
  test: {
    include: ["lib/**/*.test.ts", "app/**/*.test.ts", "components/**/*.test.ts", "bench/**/*.test.ts", "server.test.ts"],
    exclude: ["**/*.hardening.test.ts", "node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // These are integration tests over real processes, sandboxes and servers on a 2-core
    // machine; in CI a failure is retried once so that a load spike is not reported as a bug.
    retry: process.env.CI ? 1 : 0,
  },
});
