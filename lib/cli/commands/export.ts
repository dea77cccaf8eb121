import "server-only";
import fs from "node:fs";
import { defineCommand, log } from "../command";
import { BadInputError, StorageError } from "@/lib/errors";
import { FILTER_HELP, FILTER_OPTIONS, filtersFromFlags } from "@/lib/trajectories/cli-filters";
import { exportEpisodes } from "@/lib/trajectories/export";
import { episodeJsonSchema } from "@/lib/trajectories/jsonl-schema";

/** `icstudio export`: the filtered set of episodes as JSONL or InterCode's results format. */
export default defineCommand({
  name: "export",
  summary: "Export episodes as JSONL (one episode per line, see docs/episode.schema.json) or InterCode's results format.",
  usage: "export [filters] --format jsonl|intercode [--out FILE]\n       icstudio export --json-schema",
  help: `${FILTER_HELP}
  --format F      jsonl (default) | intercode
  --out FILE      write to FILE instead of stdout
  --json-schema   print the JSON Schema of one JSONL line (how docs/episode.schema.json is made)`,
  options: { ...FILTER_OPTIONS, format: { type: "string" }, out: { type: "string" }, "json-schema": { type: "boolean" } },
  async run({ values }) {
    if (values["json-schema"]) {
      process.stdout.write(JSON.stringify(episodeJsonSchema(), null, 2) + "\n");
      return 0;
    }
    const format = (values.format ?? "jsonl") as string;
    if (format !== "jsonl" && format !== "intercode") throw new BadInputError("must be jsonl or intercode", "--format");
    const filters = filtersFromFlags(values);
    const out = values.out as string | undefined;
    const tmp = out ? `${out}.partial-${process.pid}` : undefined;
    const fd = tmp ? fs.openSync(tmp, "w") : 1;
    try {
      const summary = await exportEpisodes({ filters, format, write: (c) => void fs.writeSync(fd, c) });
      if (tmp) {
        fs.closeSync(fd);
        fs.renameSync(tmp, out!);
      }
      log(`exported ${summary.episodes} episodes${out ? ` to ${out}` : ""}${summary.renamedKeys ? ` (${summary.renamedKeys} repeated tasks got keys like 12_2)` : ""}`);
    } catch (err) {
      if (tmp) {
        try {
          fs.closeSync(fd);
        } catch {}
        fs.rmSync(tmp, { force: true });
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "ENOSPC" || code === "EROFS" || code === "EACCES") throw new StorageError(`cannot write ${out}: ${code}`);
      }
      throw err;
    }
    return 0;
  },
});
