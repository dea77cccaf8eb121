import { defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config";

/** The attack and fault suite (`npm run test:hardening`): `*.hardening.test.ts`. */
export default mergeConfig(
  base,
  defineConfig({
    test: {
      include: ["**/*.hardening.test.ts"],
      exclude: ["node_modules/**"],
      fileParallelism: false,
    },
  }),
);
