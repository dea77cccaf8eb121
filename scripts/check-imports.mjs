// Checks the house rules on imports (STYLE.md 12-13, issue 12) and prints the folder graph of lib/:
//   1. no import cycle between the folders of lib/ (lib/<folder>/**; files at lib/ itself are the
//      folder "lib"), counting every import of non-test code, type-only ones too;
//   2. bench/ imports nothing from e2e/ or hardening/ (shared helpers live in lib/testing/);
//   3. IC_* environment variables are read only in lib/config.ts (lib, app, components, server.ts,
//      scripts; tests included, setting a variable for a child process is not a read);
//   4. client code (components/**, and any "use client" module) imports nothing from a server-only
//      module (one with `import "server-only"`), type-only imports included: its data types live in
//      a shared, client-safe module (e.g. lib/db/episode-rows.ts, lib/viewer/view-types.ts);
//   5. lib/viewer holds client-safe view helpers only (no server-only module): the viewer's server
//      jobs (gold output, recheck, turn scores, branch) live in lib/replay.
//   6. test tiers by name (STYLE.md 15): a fast test (*.test.ts, not *.int.test.ts) uses none of
//      the helpers that bring up a store, a sandbox or a server; those tests are *.int.test.ts.
//   node scripts/check-imports.mjs [--graph]      exit 1 with each problem named, else 0
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SKIP_DIRS = new Set(["node_modules", ".next", "generated", "generated-pg", "var", "artifacts", ".git"]);
const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;
const isTest = (f) => /\.test\.(ts|tsx)$/.test(f);
const showGraph = process.argv.includes("--graph");

function walk(dir, out = []) {
  if (!fs.existsSync(dir)) return out;
  const st = fs.statSync(dir);
  if (st.isFile()) return SOURCE.test(dir) ? [...out, dir] : out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP_DIRS.has(e.name)) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (SOURCE.test(e.name) && !e.name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

const rel = (f) => path.relative(root, f).split(path.sep).join("/");

/** Import specifiers of a file: static imports and re-exports (with whether type-only) and import(). */
function importsOf(text) {
  const out = [];
  const re = /(?:^|[\n;])\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;
  for (const m of text.matchAll(re)) {
    if (m[3]) out.push({ spec: m[3], typeOnly: Boolean(m[2]) });
    else if (m[4]) out.push({ spec: m[4], typeOnly: false });
  }
  return out;
}

/** The repository file an import names, or null for a package. */
function resolve(from, spec) {
  let base;
  if (spec.startsWith("@/")) base = path.join(root, spec.slice(2));
  else if (spec.startsWith(".")) base = path.resolve(path.dirname(from), spec);
  else return null;
  for (const cand of [base, ...[".ts", ".tsx", ".mjs", ".js"].map((x) => base + x), ...["index.ts", "index.tsx"].map((x) => path.join(base, x))]) {
    if (fs.existsSync(cand) && fs.statSync(cand).isFile()) return cand;
  }
  return base;
}

/** lib/<folder> for a file under lib/, "lib" for a file directly in lib/, else null. */
function libFolder(file) {
  const r = rel(file);
  if (!r.startsWith("lib/")) return null;
  const parts = r.split("/");
  return parts.length === 2 ? "lib" : `lib/${parts[1]}`;
}

const problems = [];

// 1. The folder graph of lib/ and its cycles.
const edges = new Map(); // from -> to -> [example "file -> file"]
for (const file of walk(path.join(root, "lib"))) {
  if (isTest(file)) continue;
  const from = libFolder(file);
  for (const { spec } of importsOf(fs.readFileSync(file, "utf8"))) {
    const target = resolve(file, spec);
    const to = target && libFolder(target);
    if (!to || to === from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    const m = edges.get(from);
    if (!m.has(to)) m.set(to, []);
    m.get(to).push(`${rel(file)} -> ${rel(target)}`);
  }
}
const folders = [...new Set([...edges.keys(), ...[...edges.values()].flatMap((m) => [...m.keys()])])].sort();

// Tarjan's strongly connected components: every component of more than one folder is a cycle.
let index = 0;
const idx = new Map(),
  low = new Map(),
  onStack = new Set(),
  stack = [],
  components = [];
function strongConnect(v) {
  idx.set(v, index), low.set(v, index), index++, stack.push(v), onStack.add(v);
  for (const w of edges.get(v)?.keys() ?? []) {
    if (!idx.has(w)) strongConnect(w), low.set(v, Math.min(low.get(v), low.get(w)));
    else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const c = [];
    let w;
    do (w = stack.pop()), onStack.delete(w), c.push(w);
    while (w !== v);
    if (c.length > 1) components.push(c.sort());
  }
}
for (const f of folders) if (!idx.has(f)) strongConnect(f);
for (const c of components) {
  const inside = new Set(c);
  const lines = c.flatMap((f) =>
    [...(edges.get(f) ?? [])]
      .filter(([to]) => inside.has(to))
      .map(([to, ex]) => `    ${f} -> ${to}: ${ex[0]}${ex.length > 1 ? ` (+${ex.length - 1} more)` : ""}`),
  );
  problems.push(`import cycle between ${c.join(", ")}:\n${lines.join("\n")}`);
}

// 2. IC_* read outside lib/config.ts.
const READ = /process\.env\.(IC_[A-Z0-9_]+)\b(?!\s*=[^=])|process\.env\[\s*["'](IC_[A-Z0-9_]+)["']\s*\](?!\s*=[^=])|\benv\.(IC_[A-Z0-9_]+)\b(?!\s*=[^=])/g;
const scanned = ["lib", "app", "components", "scripts", "server.ts"].flatMap((d) => walk(path.join(root, d)));
for (const file of scanned) {
  const r = rel(file);
  if (r === "lib/config.ts" || r === "scripts/check-imports.mjs") continue;
  const text = fs.readFileSync(file, "utf8");
  text.split("\n").forEach((line, i) => {
    for (const m of line.matchAll(READ)) {
      const before = line.slice(0, m.index);
      if (/\bdelete\s+$/.test(before)) continue;
      // `const saved = process.env.IC_X` to restore it after a test is bookkeeping, not a setting read.
      if (isTest(file) && (/\b(saved|old|prev|before)\w*\s*=\s*$/i.test(before) || /^\s*(const|let)\s+(saved|old|prev|before)\w*\s*=/i.test(line))) continue;
      problems.push(`${r}:${i + 1}: reads ${m[1] ?? m[2] ?? m[3]} directly; read it from config() in lib/config.ts`);
    }
  });
}

// 3. bench/ takes its test helpers from lib/testing, never from the e2e/ or hardening/ suites.
for (const file of walk(path.join(root, "bench"))) {
  for (const { spec } of importsOf(fs.readFileSync(file, "utf8"))) {
    const target = resolve(file, spec);
    if (target && /^(e2e|hardening)\//.test(rel(target))) problems.push(`${rel(file)} imports ${rel(target)}; move what it needs to lib/testing/`);
  }
}

// 4. Client code imports nothing from a server-only module, not even a type (a type's home is a
//    shared module, so the client never depends on server code's file, erased or not).
const serverOnly = (file) => fs.existsSync(file) && /^\s*import\s+["']server-only["']/m.test(fs.readFileSync(file, "utf8"));
for (const file of ["app", "components", "lib"].flatMap((d) => walk(path.join(root, d)))) {
  const text = fs.readFileSync(file, "utf8");
  const client = /^\s*["']use client["']/.test(text) || (rel(file).startsWith("components/") && !isTest(file));
  if (!client) continue;
  // Through the shared modules it imports, too: a shared module that takes a type from server code is not shared.
  const seen = new Set([file]);
  const todo = [[file]];
  while (todo.length) {
    const chain = todo.pop();
    const at = chain[chain.length - 1];
    for (const { spec, typeOnly } of importsOf(fs.readFileSync(at, "utf8"))) {
      const target = resolve(at, spec);
      if (!target || seen.has(target) || !fs.existsSync(target)) continue;
      seen.add(target);
      if (serverOnly(target)) {
        const via = chain.length > 1 ? ` (via ${chain.slice(1).map(rel).join(" -> ")})` : "";
        problems.push(
          `${rel(file)} is client code but imports ${typeOnly ? "types from " : ""}the server-only ${rel(target)}${via}; move what it needs to a shared module`,
        );
      } else todo.push([...chain, target]);
    }
  }
}

// 5. lib/viewer is the client-safe half of the viewer: a server-only module there belongs in lib/replay.
for (const file of walk(path.join(root, "lib/viewer"))) {
  if (!isTest(file) && serverOnly(file))
    problems.push(`${rel(file)} is server-only; lib/viewer holds client-safe view helpers (server jobs go in lib/replay/)`);
}

// 6. The fast tier (`npm run test:fast`) runs with no sandbox and no database: a test that needs
//    one says so in its name (*.int.test.ts), so it cannot use these helpers as a plain *.test.ts.
const NEEDS_SERVICES =
  /\b(useTempStore|useFreshDb|storeEngines|tempPgStoreUrl|initStore|backendsUnderTest|useLiveEpisodeManager|registerSandboxConformance|startScriptedServer|startServer|spawnStudio|createEnvironment|getSandboxBackend)\b/;
for (const file of ["lib", "app", "components"].flatMap((d) => walk(path.join(root, d)))) {
  if (!isTest(file) || /\.(int|hardening)\.test\.tsx?$/.test(file)) continue;
  const m = NEEDS_SERVICES.exec(fs.readFileSync(file, "utf8"));
  if (m) problems.push(`${rel(file)} uses ${m[1]} (a store, sandbox or server) but is in the fast tier; rename it *.int.test.ts`);
}

if (showGraph || problems.length) {
  console.log("lib/ folder dependencies (who imports whom):");
  for (const f of folders) console.log(`  ${f.padEnd(18)} -> ${[...(edges.get(f)?.keys() ?? [])].sort().join(", ") || "(nothing)"}`);
}
if (problems.length) {
  console.error(`\ncheck-imports: ${problems.length} problem(s)\n` + problems.map((p) => `  ${p}`).join("\n"));
  process.exit(1);
}
console.log(
  `check-imports: no folder cycle in lib/ (${folders.length} folders), IC_* read only in lib/config.ts, no client code imports from a server-only module (types included), lib/viewer client-safe, fast tests need no store, sandbox or server`,
);
