/**
 * `npm run bench -- <name> [args]`: runs bench/<name>.ts, whose default export is an async
 * function taking the remaining arguments. Each benchmark prints a table on stdout.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

function available(): string[] {
  return readdirSync(here)
    .filter((f) => f.endsWith(".ts") && f !== "main.ts" && !f.endsWith(".test.ts"))
    .map((f) => f.slice(0, -3))
    .sort();
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h") {
    process.stdout.write(`usage: npm run bench -- <name> [options]\n\nbenchmarks: ${available().join(", ")}\n`);
    return name ? 0 : 2;
  }
  if (!/^[a-z0-9-]+$/.test(name) || !existsSync(path.join(here, `${name}.ts`))) {
    process.stderr.write(`bench: unknown benchmark ${JSON.stringify(name)} (available: ${available().join(", ")})\n`);
    return 2;
  }
  const mod = (await import(pathToFileURL(path.join(here, `${name}.ts`)).href)) as { default: (args: string[]) => Promise<number | undefined> };
  return (await mod.default(rest)) ?? 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`bench: ${String(err?.stack ?? err)}\n`);
    process.exitCode = 1;
  },
);
