// `npm start`: make sure everything the server needs is in place, then run it in production mode.
//   1. the Prisma client is generated (lib/db/generated);
//   2. the Next.js build is current (rebuilt only when a source file is newer than .next/BUILD_ID);
//   3. a sandbox can run (bubblewrap for the local backend; installed with apt-get when we are root);
//   4. server.ts runs with NODE_ENV=production (migrations and interrupted episodes are handled there).
// Flags: --no-build (never build), --force-build, --build-only (stop after step 2; the e2e setup uses it).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tsImport } from "tsx/esm/api";
import "./hooks.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = new Set(process.argv.slice(2));
const log = (msg) => console.log(`[start] ${msg}`);

function run(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, { cwd: root, stdio: "inherit", ...opts });
  if (r.status !== 0) {
    console.error(`[start] ${cmd} ${argv.join(" ")} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status ?? 1);
  }
}

// 0. The settings (lib/config.ts, the one reader of IC_* variables): a bad value stops here, naming it.
let settings;
try {
  settings = (await tsImport("../lib/config.ts", import.meta.url)).config();
} catch (err) {
  console.error(`[start] ${err.message}`);
  process.exit(1);
}

// 1. Prisma client
if (!fs.existsSync(path.join(root, "lib/db/generated")) || !fs.existsSync(path.join(root, "lib/db/generated-pg"))) {
  log("generating the Prisma clients");
  run(process.execPath, [path.join(root, "scripts/prisma-generate.mjs")]);
}

// 2. Next build, when needed
const SOURCE_ROOTS = ["app", "components", "lib", "public", "next.config.ts", "package.json", "package-lock.json", "postcss.config.mjs", "tsconfig.json"];
const SKIP = new Set(["node_modules", ".next", "generated", "generated-pg", "var", "artifacts"]);

function newestMtime(p) {
  let st;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return /\.test\.tsx?$/.test(p) ? 0 : st.mtimeMs;
  let newest = 0;
  for (const e of fs.readdirSync(p)) {
    if (SKIP.has(e)) continue;
    newest = Math.max(newest, newestMtime(path.join(p, e)));
  }
  return newest;
}

function buildIsCurrent() {
  const idFile = path.join(root, ".next/BUILD_ID");
  if (!fs.existsSync(idFile)) return false;
  const built = fs.statSync(idFile).mtimeMs;
  return SOURCE_ROOTS.every((r) => newestMtime(path.join(root, r)) <= built);
}

if (args.has("--force-build") || (!args.has("--no-build") && !buildIsCurrent())) {
  log("building the app (next build); this takes a few minutes the first time");
  run(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], { env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
} else {
  log("the build is current");
}

if (args.has("--build-only")) process.exit(0);

// 3. A sandbox
function has(cmd) {
  return spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
}
if (!has("bwrap") && settings.backend !== "docker") {
  if (process.getuid?.() === 0 && has("apt-get")) {
    log("bubblewrap (bwrap) is missing: installing it with apt-get");
    // A fresh machine may have no package lists yet.
    run("apt-get", ["update", "-qq"]);
    run("apt-get", ["install", "-y", "bubblewrap"], { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
  } else {
    console.error(
      "[start] no sandbox: the local backend needs bubblewrap. Install it (Debian/Ubuntu: `sudo apt-get install -y bubblewrap`)," +
        " or run Docker and set IC_SANDBOX=docker.",
    );
    process.exit(1);
  }
}

// 4. The server
const child = spawn(process.execPath, ["--import", "tsx", "--import", "./scripts/hooks.mjs", "server.ts"], {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
