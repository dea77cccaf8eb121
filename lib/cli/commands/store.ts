import "server-only";
import { z } from "zod";
import { parseStoreTarget } from "@/lib/config";
import { copyStore, STORE_TABLES } from "@/lib/db/store-copy";
import { BadInputError } from "@/lib/errors";
import { defineCommand, log, printJson } from "../command";

/** `icstudio store copy`: moves a whole store between SQLite and PostgreSQL, verified. */
export default defineCommand({
  name: "store",
  summary:
    "Copies a whole store (episodes, turns, runs, studies, annotations, caches) between a SQLite file and a PostgreSQL database, either way, and verifies the copy.",
  positionals: [{ name: "copy", help: "the subcommand: copy a whole store", required: true }],
  flags: z.object({
    from: z
      .string({ error: "is required (a SQLite file or a postgresql:// URL)" })
      .min(1, "is required (a SQLite file or a postgresql:// URL)")
      .describe("the store to read: a SQLite file path or postgresql://user:password@host:port/database[?schema=name]")
      .meta({ value: "DB" }),
    to: z
      .string({ error: "is required (a SQLite file or a postgresql:// URL)" })
      .min(1, "is required (a SQLite file or a postgresql:// URL)")
      .describe("the store to write (created and migrated if needed); it must be empty unless --replace")
      .meta({ value: "DB" }),
    replace: z.boolean().default(false).describe("empty the target first (in the same transaction as the copy)"),
    json: z.boolean().default(false).describe("{from, to, counts: {table: rows}, checksum, replaced, ms}"),
  }),
  help: `The copy is one transaction on the target: all of it or nothing. Afterwards every table's row count
and a checksum over every row are compared with the source's; a difference is an error.`,
  async run({ values, positionals }) {
    if (positionals[0] !== "copy") throw new BadInputError(`expected the subcommand copy, got ${JSON.stringify(positionals.join(" "))}`, "arguments");
    const report = await copyStore({ from: parseStoreTarget(values.from, "--from"), to: parseStoreTarget(values.to, "--to"), replace: values.replace, log });
    if (values.json) printJson(report);
    else {
      process.stdout.write(
        `copied ${report.from} → ${report.to}${report.replaced ? " (target emptied first)" : ""} in ${(report.ms / 1000).toFixed(1)} s, verified\n`,
      );
      for (const t of STORE_TABLES) process.stdout.write(`  ${t.padEnd(18)} ${String(report.counts[t]).padStart(8)}\n`);
      process.stdout.write(`  checksum ${report.checksum}\n`);
    }
    return 0;
  },
});
