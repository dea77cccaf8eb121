import "server-only";
import { parseStoreTarget } from "@/lib/config";
import { copyStore, STORE_TABLES } from "@/lib/db/store-copy";
import { BadInputError } from "@/lib/errors";
import { defineCommand, log, printJson } from "../command";

/** `icstudio store copy`: moves a whole store between SQLite and PostgreSQL, verified. */
export default defineCommand({
  name: "store",
  summary: "Copies a whole store (episodes, turns, runs, studies, annotations, caches) between a SQLite file and a PostgreSQL database, either way, and verifies the copy.",
  usage: "store copy --from <db> --to <db> [--replace] [--json]",
  help: `  --from DB     the store to read: a SQLite file path or postgresql://user:password@host:port/database[?schema=name]
  --to DB       the store to write (created and migrated if needed); it must be empty unless --replace
  --replace     empty the target first (in the same transaction as the copy)
  --json        {from, to, counts: {table: rows}, checksum, replaced, ms}
The copy is one transaction on the target: all of it or nothing. Afterwards every table's row count
and a checksum over every row are compared with the source's; a difference is an error.`,
  options: { from: { type: "string" }, to: { type: "string" }, replace: { type: "boolean" }, json: { type: "boolean" } },
  allowPositionals: true,
  async run({ values, positionals }) {
    if (positionals[0] !== "copy" || positionals.length !== 1) throw new BadInputError(`expected the subcommand copy, got ${JSON.stringify(positionals.join(" "))}`, "icstudio store");
    if (typeof values.from !== "string" || !values.from) throw new BadInputError("is required (a SQLite file or a postgresql:// URL)", "--from");
    if (typeof values.to !== "string" || !values.to) throw new BadInputError("is required (a SQLite file or a postgresql:// URL)", "--to");
    const report = await copyStore({ from: parseStoreTarget(values.from, "--from"), to: parseStoreTarget(values.to, "--to"), replace: Boolean(values.replace), log });
    if (values.json) printJson(report);
    else {
      process.stdout.write(`copied ${report.from} → ${report.to}${report.replaced ? " (target emptied first)" : ""} in ${(report.ms / 1000).toFixed(1)} s, verified\n`);
      for (const t of STORE_TABLES) process.stdout.write(`  ${t.padEnd(18)} ${String(report.counts[t]).padStart(8)}\n`);
      process.stdout.write(`  checksum ${report.checksum}\n`);
    }
    return 0;
  },
});
