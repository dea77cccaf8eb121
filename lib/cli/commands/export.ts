import "server-only";
import fs from "node:fs";
import { defineCommand, log } from "../command";
import { BadInputError, StorageError } from "@/lib/errors";
import { FILTER_HELP, FILTER_OPTIONS, filtersFromFlags } from "@/lib/trajectories/cli-filters";
import { exportEpisodes } from "@/lib/trajectories/export";
import { exportAtifJob, exportInspectLog } from "@/lib/trajectories/export-ecosystem";
import { episodeJsonSchema } from "@/lib/trajectories/jsonl-schema";

/** `icstudio export`: the filtered set of episodes as JSONL or InterCode's results format. */
export default defineCommand({
  name: "export",
  summary: "Export episodes as JSONL (one episode per line, see docs/episode.schema.json), InterCode's results format, an Inspect eval log or Harbor ATIF trials.",
  usage: "export [filters] --format jsonl|intercode [--out FILE]\n       icstudio export [filters] --format inspect --out FILE.eval\n       icstudio export [filters] --format atif --out DIR\n       icstudio export --json-schema",
  help: `${FILTER_HELP}
  --format F      jsonl (default) | intercode | inspect (an Inspect AI .eval log: one sample per
                  episode, opens in Inspect's log viewer) | atif (a Harbor job folder: one trial
                  folder per episode, agent/trajectory.json in ATIF-v1.6, verifier/reward.txt, result.json)
  --out FILE      write to FILE instead of stdout (inspect and atif: required; atif: a new or empty folder)
  --json-schema   print the JSON Schema of one JSONL line (how docs/episode.schema.json is made)`,
  options: { ...FILTER_OPTIONS, format: { type: "string" }, out: { type: "string" }, "json-schema": { type: "boolean" } },
  async run({ values }) {
    if (values["json-schema"]) {
      process.stdout.write(JSON.stringify(episodeJsonSchema(), null, 2) + "\n");
      return 0;
    }
    const format = (values.format ?? "jsonl") as string;
    if (!["jsonl", "intercode", "inspect", "atif"].includes(format)) throw new BadInputError("must be jsonl, intercode, inspect or atif", "--format");
    const filters = filtersFromFlags(values);
    const out = values.out as string | undefined;
    if (format === "inspect" || format === "atif") {
      if (!out) throw new BadInputError(format === "inspect" ? "--format inspect writes a .eval file: give --out FILE.eval" : "--format atif writes a folder of trials: give --out DIR", "--out");
      try {
        const r = format === "inspect" ? await exportInspectLog({ filters, out }) : await exportAtifJob({ filters, dir: out });
        log(`exported ${r.episodes} episodes to ${out}`);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "EEXIST") throw new BadInputError("the folder exists and is not empty", out);
        if (code === "ENOSPC" || code === "EROFS" || code === "EACCES" || code === "ENOENT") throw new StorageError(`cannot write ${out}: ${code}`);
        throw err;
      }
      return 0;
    }
    const tmp = out ? `${out}.partial-${process.pid}` : undefined;
    const fd = tmp ? fs.openSync(tmp, "w") : 1;
    try {
      const summary = await exportEpisodes({ filters, format: format as "jsonl" | "intercode", write: (c) => void fs.writeSync(fd, c) });
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
