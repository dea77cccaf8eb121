// The CLI compiled ahead of use: lib/cli/main.ts and the import's reading thread
// (lib/trajectories/import-worker.ts) bundled by esbuild into node_modules/.cache/icstudio-cli/,
// so that a command starts as plain JavaScript instead of through tsx's loader, which resolves and
// transforms every TypeScript module on each start (about 1.2 s of CPU for `icstudio import`,
// paid again by the reading thread). bin/icstudio.mjs asks for the bundle on every start:
// a manifest lists the build's inputs (every source file esbuild read, with its size and
// modification time) and statting them takes a few milliseconds; when one changed, was added to
// an import or is gone, the CLI is built again before it runs (about a second).
// Packages stay outside the bundle (imported from node_modules as before), as do the files that
// modules find beside themselves at run time (their `import.meta.url` is kept as the original
// file's URL). Each build goes to a folder of its own and the manifest is replaced by a rename, so
// commands started at the same time never see half a build.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const SELF = fileURLToPath(import.meta.url);
const REPO_ROOT = path.resolve(path.dirname(SELF), "..");
const ENTRIES = { main: "lib/cli/main.ts", "import-worker": "lib/trajectories/import-worker.ts" };
/** Files that shape the build without being read as modules (this file counts too). */
const CONFIG_INPUTS = ["tsconfig.json", "package.json"];
/** Builds other than the current one are removed once this old (a long-running command may still load a chunk of its build). */
const OLD_BUILD_MS = 24 * 3600_000;

/** Where a checkout's builds live: beside its packages, out of git, out of the data directory. */
const cacheDirOf = (root) => path.join(root, "node_modules/.cache/icstudio-cli");

/**
 * The current build's entry for `name` ("main" or "import-worker") when every input is as it was
 * built from, else null.
 */
export function freshBundle(name = "main", root = REPO_ROOT) {
  const cacheDir = cacheDirOf(root);
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(cacheDir, "manifest.json"), "utf8"));
  } catch {
    return null;
  }
  if (manifest.root !== root || manifest.node !== process.versions.node) return null;
  for (const [rel, [size, mtimeMs]] of Object.entries(manifest.inputs)) {
    let st;
    try {
      st = fs.statSync(path.resolve(root, rel));
    } catch {
      return null;
    }
    if (st.size !== size || st.mtimeMs !== mtimeMs) return null;
  }
  const entry = path.join(cacheDir, manifest.build, `${name}.mjs`);
  return fs.existsSync(entry) ? entry : null;
}

/**
 * Builds the CLI of the checkout at `root` and makes it current; returns the entry of `name`.
 * Throws when esbuild fails.
 */
export async function buildBundle(name = "main", root = REPO_ROOT) {
  const esbuild = await import("esbuild");
  const cacheDir = cacheDirOf(root);
  const build = `${Date.now().toString(36)}-${process.pid}`;
  const outdir = path.join(cacheDir, build);
  // Sizes and times are taken before esbuild reads the files: a file saved during the build then
  // looks changed, and the next start builds again instead of trusting a mix of versions.
  const stamps = new Map();
  const stamp = (abs) => {
    if (!stamps.has(abs)) {
      const st = fs.statSync(abs);
      stamps.set(abs, [st.size, st.mtimeMs]);
    }
  };
  for (const file of [SELF, ...CONFIG_INPUTS.map((rel) => path.join(root, rel))]) stamp(file);
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([n, rel]) => [n, path.join(root, rel)])),
    outdir,
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: `node${process.versions.node.split(".")[0]}`,
    packages: "external",
    tsconfig: path.join(root, "tsconfig.json"),
    sourcemap: "linked",
    metafile: true,
    logLevel: "silent",
    // The reading thread's entry is this build's, not the TypeScript one through tsx.
    define: { ICSTUDIO_BUNDLED_WORKER: JSON.stringify(path.join(outdir, "import-worker.mjs")) },
    plugins: [
      {
        name: "icstudio",
        setup(b) {
          // As scripts/hooks.mjs does for tsx: outside a React bundle `server-only` is empty.
          b.onResolve({ filter: /^server-only$/ }, () => ({ path: "server-only", namespace: "empty" }));
          b.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "", loader: "js" }));
          b.onLoad({ filter: /\.(ts|tsx|mts|mjs|js)$/ }, (args) => {
            stamp(args.path);
            const source = fs.readFileSync(args.path, "utf8");
            const loader = /\.tsx$/.test(args.path) ? "tsx" : /\.m?js$/.test(args.path) ? "js" : "ts";
            // Modules find files beside them (supervisor.py, sqlite-child.mjs, the repository root)
            // from their own URL: the original file's, not the bundle's.
            const contents = source.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href));
            return { contents, loader };
          });
        },
      },
    ],
  });
  for (const input of Object.keys(result.metafile.inputs)) if (!input.startsWith("empty:")) stamp(path.resolve(root, input));
  const inputs = Object.fromEntries([...stamps].map(([abs, s]) => [path.relative(root, abs), s]));
  const manifest = path.join(cacheDir, "manifest.json");
  const tmp = `${manifest}.${build}`;
  fs.writeFileSync(tmp, JSON.stringify({ root, node: process.versions.node, build, inputs }));
  fs.renameSync(tmp, manifest);
  for (const old of fs.readdirSync(cacheDir)) {
    const p = path.join(cacheDir, old);
    if (old === build || old === "manifest.json") continue;
    try {
      if (Date.now() - fs.statSync(p).mtimeMs > OLD_BUILD_MS) fs.rmSync(p, { recursive: true, force: true });
    } catch {
      // Removed by another start meanwhile.
    }
  }
  return path.join(outdir, `${name}.mjs`);
}
