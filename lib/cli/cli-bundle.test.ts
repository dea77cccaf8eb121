import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { buildBundle, freshBundle } from "../../scripts/cli-bundle.mjs";

// scripts/cli-bundle.mjs (the CLI compiled ahead of use), on a checkout of a few files of its own:
// what it builds runs, and a changed, added or removed source makes it build again.
const root = fs.mkdtempSync(path.join(os.tmpdir(), "ic-cli-bundle-"));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function write(rel: string, text: string, mtime?: Date) {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  if (mtime) fs.utimesSync(file, mtime, mtime);
}
const run = (entry: string) => spawnSync(process.execPath, [entry], { encoding: "utf8" });

describe("scripts/cli-bundle.mjs", () => {
  it("builds the CLI, and builds it again when a source changes, is added or is gone", async () => {
    write("package.json", `{ "type": "module" }`);
    write("tsconfig.json", `{ "compilerOptions": { "paths": { "@/*": ["./*"] } } }`);
    write("lib/trajectories/import-worker.ts", `export const worker: string = "worker";\n`);
    write("lib/word.ts", `export const word: string = "one";\n`);
    write(
      "lib/cli/main.ts",
      `import "server-only";\nimport { word } from "@/lib/word";\ndeclare const ICSTUDIO_BUNDLED_WORKER: string;\n` +
        `console.log(JSON.stringify({ word, url: import.meta.url, worker: ICSTUDIO_BUNDLED_WORKER }));\n`,
    );
    expect(freshBundle("main", root)).toBeNull();
    const first = await buildBundle("main", root);
    expect(freshBundle("main", root)).toBe(first);
    const out = JSON.parse(run(first).stdout);
    // `server-only` is empty, `import.meta.url` is the source file's, the reading thread's entry is this build's.
    expect(out).toEqual({
      word: "one",
      url: pathToFileURL(path.join(root, "lib/cli/main.ts")).href,
      worker: path.join(path.dirname(first), "import-worker.mjs"),
    });
    expect(fs.existsSync(out.worker)).toBe(true);

    // Same size, another time: built again.
    write("lib/word.ts", `export const word: string = "two";\n`, new Date(Date.now() + 5_000));
    expect(freshBundle("main", root)).toBeNull();
    const second = await buildBundle("main", root);
    expect(second).not.toBe(first);
    expect(JSON.parse(run(second).stdout).word).toBe("two");

    // An import moves to a new module and the old one is deleted.
    write("lib/other.ts", `export const word: string = "three";\n`);
    write("lib/cli/main.ts", `import { word } from "@/lib/other";\nconsole.log(JSON.stringify({ word }));\n`, new Date(Date.now() + 10_000));
    expect(freshBundle("main", root)).toBeNull();
    const third = await buildBundle("main", root);
    expect(JSON.parse(run(third).stdout).word).toBe("three");
    expect(freshBundle("main", root)).toBe(third);
    fs.rmSync(path.join(root, "lib/word.ts"));
    expect(freshBundle("main", root)).toBe(third);
    fs.rmSync(path.join(root, "lib/other.ts"));
    expect(freshBundle("main", root)).toBeNull();
  });

  it("fails on a source that does not compile", async () => {
    write("lib/cli/main.ts", `export const = ;\n`, new Date(Date.now() + 15_000));
    await expect(buildBundle("main", root)).rejects.toThrow(/main\.ts/);
  });
});
