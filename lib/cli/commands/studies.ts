import "server-only";
import { z } from "zod";
import { defineCommand, printJson, requireFlags } from "../command";
import { BadInputError } from "@/lib/errors";
import { config } from "@/lib/config";
import { envNameSchema } from "@/lib/datasets/types";

/** The flags of every form: create's (its required ones checked when it runs), then invite's, then --json. */
const flagsSchema = z.object({
  name: z.string().trim().min(1, "give the study a name").optional().describe("create: the study's name"),
  env: envNameSchema.optional().describe("create: the environment"),
  dataset: z.string().min(1, "name the dataset").optional().describe("create: the dataset").meta({ value: "D" }),
  tasks: z
    .string()
    .regex(/^\d+(,\d+)*$/, "write dataset positions separated by commas, e.g. 0,1,2")
    .optional()
    .describe(
      "create: 0-based positions in the dataset, worked in that order (--assign fixed), in a seeded\nrandom order per participant (random), or in rows of a Latin square (balanced: each task\nequally often at each position)",
    )
    .meta({ value: "0,1,2" }),
  assign: z.enum(["fixed", "random", "balanced"]).default("fixed").describe("create: the order of the tasks"),
  feedback: z
    .enum(["none", "reward", "full"])
    .default("none")
    .describe("create: none (no outcome shown), reward (reward after each turn and after submit),\nfull (also the breakdown and the scored output)"),
  "show-gold-after-submit": z.boolean().default(false).describe("create: show the gold solution once a task is submitted"),
  "time-limit": z.string().optional().describe("create: active time per task, e.g. 20m").meta({ value: "T" }),
  instructions: z.string().optional().describe("create: shown to participants before they start").meta({ value: "TEXT" }),
  count: z.coerce.number().int().min(1).max(500).optional().describe("invite: how many invite links"),
  expires: z.string().optional().describe("invite: the links stop working after this long, e.g. 7d").meta({ value: "T" }),
  "base-url": z
    .string()
    .url("must be a URL such as https://studio.example.org")
    .optional()
    .describe("invite: the address participants open (default http://IC_HOST:IC_PORT)")
    .meta({ value: "URL" }),
  json: z.boolean().default(false).describe("create: prints {id}; invite: {invites: [{participant, url}]}; list: {studies}; close: {closed}"),
});

function one(positionals: string[], what: string): string {
  const [id, ...more] = positionals;
  if (!id) throw new BadInputError(`give the study's id: icstudio studies ${what} <id>`, "id");
  if (more.length) throw new BadInputError(`unexpected argument ${JSON.stringify(more[0])}`, "arguments");
  return id;
}

/** `icstudio studies create|invite|list|close`: human baseline studies and their participants' invite links. */
export default defineCommand({
  name: "studies",
  summary: "Make human baseline studies, invite participants by link, list and close them.",
  positionals: [
    { name: "create|invite|list|close", help: "what to do", required: true },
    { name: "id", help: "invite, close: the study's id" },
  ],
  flags: flagsSchema,
  help: `  create    makes a study; needs --name, --env, --dataset and --tasks.
  invite    makes --count invite links; each url holds a secret shown only now.
  list      every study with its participants' counts.
  close     ends the study: invites stop working and its tasks' seal lifts.`,
  async run({ values, positionals }) {
    const [sub, ...rest] = positionals;
    const { createStudyFromSelection, listStudyViews, closeStudy } = await import("@/lib/studies/studies");
    const { inviteParticipants, listParticipants, parseDuration } = await import("@/lib/studies/participants");
    if (sub === "create") {
      if (rest.length) throw new BadInputError(`unexpected argument ${JSON.stringify(rest[0])}`, "arguments");
      const f = requireFlags(values, {
        name: "give the study a name",
        env: "required: bash, sql, python or ctf",
        dataset: "name the dataset",
        tasks: "list the dataset positions, e.g. 0,1,2",
      });
      const study = await createStudyFromSelection({
        name: f.name,
        env: f.env,
        dataset: f.dataset,
        selection: { kind: "indices", indices: f.tasks.split(",").map(Number) },
        assign: f.assign,
        feedback: f.feedback,
        showGoldAfterSubmit: f["show-gold-after-submit"],
        timeLimitMs: f["time-limit"] ? parseDuration(f["time-limit"], "--time-limit") : null,
        instructions: f.instructions ?? "",
      });
      if (f.json) printJson({ id: study.id });
      else process.stdout.write(`${study.id}  ${study.name}\n`);
      return 0;
    }
    if (sub === "invite") {
      const id = one(rest, "invite");
      const f = requireFlags(values, { count: "required: how many invite links" });
      const made = await inviteParticipants(id, f.count, f.expires ? parseDuration(f.expires, "--expires") : null);
      const c = config();
      const base = (f["base-url"] ?? `http://${c.host.includes(":") ? `[${c.host}]` : c.host}:${c.port}`).replace(/\/+$/, "");
      const invites = made.map((m) => ({ participant: m.participant, url: `${base}${m.path}` }));
      if (f.json) printJson({ invites });
      else for (const i of invites) process.stdout.write(`${i.participant}  ${i.url}\n`);
      return 0;
    }
    if (sub === "list") {
      if (rest.length) throw new BadInputError(`unexpected argument ${JSON.stringify(rest[0])}`, "arguments");
      const studies = await Promise.all(
        (await listStudyViews()).map(async (s) => {
          const ps = await listParticipants(s.id);
          return {
            id: s.id,
            name: s.name,
            env: s.config.env,
            dataset: s.config.dataset,
            tasks: s.config.tasks.length,
            assign: s.config.assign,
            feedback: s.config.feedback,
            closed: s.closedAt !== null,
            participants: ps.length,
            live: ps.filter((p) => p.state === "live").length,
            completed: ps.filter((p) => p.completedAt).length,
          };
        }),
      );
      if (values.json) printJson({ studies });
      else
        for (const s of studies)
          process.stdout.write(
            `${s.id}  ${s.name}  ${s.env}/${s.dataset}  ${s.tasks} tasks  ${s.participants} participants (${s.completed} done)${s.closed ? "  closed" : ""}\n`,
          );
      return 0;
    }
    if (sub === "close") {
      const r = await closeStudy(one(rest, "close"));
      if (values.json) printJson(r);
      else process.stdout.write(r.closed ? "closed\n" : "already closed\n");
      return 0;
    }
    throw new BadInputError(`unknown subcommand ${JSON.stringify(sub ?? "")}: use create, invite, list or close`, "studies");
  },
});
