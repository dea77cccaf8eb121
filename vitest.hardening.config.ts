import { defineConfig } from "vitest/config";
import base from "./vitest.config";

/**
 * The attack and fault suite (`npm run test:hardening`): `*.hardening.test.ts`.
 * include/exclude replace the base lists (mergeConfig would concatenate them, and the base
 * excludes every hardening file).
 */
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ["**/*.hardening.test.ts"],
    exclude: ["node_modules/**"],
    fileParallelism: false,
    globalSetup: ["./hardening/global-setup.ts"],
  },
});
