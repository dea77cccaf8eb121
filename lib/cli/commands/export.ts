import "server-only";
import fs from "node:fs";
import { defineCommand, log } from "../command";
import { BadInputError, StorageError } from "@/lib/errors";
import { z } from "zod";
import { episodeFilters, filterFlags } from "@/lib/trajectories/cli-filters";
import { exportEpisodes } from "@/lib/trajectories/export";
import { exportAtifJob, exportInspectLog } from "@/lib/trajectories/export-ecosystem";
import { episodeJsonSchema } from "@/lib/trajectories/jsonl-schema";

/** `icstudio export`: the filtered set of episodes as JSONL or InterCode's results format. */
export default defineCommand({
  name: "export",
  summary:
    "Export episodes as JSONL (one episode per line, see docs/episode.schema.json), InterCode's results format, an Inspect eval log or Harbor ATIF trials.",
  flags: z.object({
    ...filterFlags.shape,
    format: z
      .enum(["jsonl", "intercode", "inspect", "atif"])
      .default("jsonl")
      .describe(
        "jsonl (one episode per line) | intercode (InterCode's results format) | inspect (an Inspect AI .eval log:\n" +
          "one sample per episode, opens in Inspect's log viewer) | atif (a Harbor job folder: one trial folder per\n" +
          "episode, agent/trajectory.json in ATIF-v1.6, verifier/reward.txt, result.json)",
      )
      .meta({ value: "F" }),
    out: z
      .string()
      .optional()
      .describe("write to FILE instead of stdout (inspect: FILE.eval, required; atif: a new or empty folder DIR, required)")
      .meta({ value: "FILE" }),
    "json-schema": z.boolean().default(false).describe("print the JSON Schema of one JSONL line (how docs/episode.schema.json is made)"),
  }),
  async run({ values }) {
    if (values["json-schema"]) {
      process.stdout.write(JSON.stringify(episodeJsonSchema(), null, 2) + "\n");
      return 0;
    }
    const format = values.format;
    const filters = episodeFilters(values);
    const out = values.out;
    if (format === "inspect" || format === "atif") {
      if (!out)
        throw new BadInputError(
          format === "inspect" ? "--format inspect writes a .eval file: give --out FILE.eval" : "--format atif writes a folder of trials: give --out DIR",
          "--out",
        );
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
      const summary = await exportEpisodes({ filters, format, write: (c) => void fs.writeSync(fd, c) });
      if (tmp) {
        fs.closeSync(fd);
        fs.renameSync(tmp, out!);
      }
      log(
        `exported ${summary.episodes} episodes${out ? ` to ${out}` : ""}${summary.renamedKeys ? ` (${summary.renamedKeys} repeated tasks got keys like 12_2)` : ""}`,
      );
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
