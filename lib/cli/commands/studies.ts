import "server-only";
import { z } from "zod";
import { defineCommand, parseFlags, printJson } from "../command";
import { BadInputError } from "@/lib/errors";
import { config } from "@/lib/config";

const createFlags = z.object({
  name: z.string({ message: "give the study a --name" }).trim().min(1),
  env: z.enum(["bash", "sql", "python", "ctf"], { message: "--env must be bash, sql, python or ctf" }),
  dataset: z.string({ message: "name the --dataset" }).min(1),
  tasks: z.string({ message: "list the dataset positions with --tasks, e.g. 0,1,2" }).regex(/^\d+(,\d+)*$/, "write dataset positions separated by commas, e.g. 0,1,2"),
  assign: z.enum(["fixed", "random", "balanced"], { message: "--assign must be balanced, random or fixed" }).default("fixed"),
  feedback: z.enum(["none", "reward", "full"], { message: "--feedback must be none, reward or full" }).default("none"),
  "show-gold-after-submit": z.boolean().default(false),
  "time-limit": z.string().optional(),
  instructions: z.string().optional(),
  json: z.boolean().default(false),
});

const inviteFlags = z.object({
  count: z.coerce.number({ message: "--count must be a number" }).int("--count must be a whole number").min(1).max(500),
  expires: z.string().optional(),
  "base-url": z.string().url("--base-url must be a URL such as https://studio.example.org").optional(),
  json: z.boolean().default(false),
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
  usage: `studies create --name N --env E --dataset D --tasks 0,1,2 [--assign balanced|random|fixed] [--feedback none|reward|full] [--show-gold-after-submit] [--time-limit 20m] [--instructions TEXT] [--json]
       studies invite <id> --count N [--expires 7d] [--base-url URL] [--json]
       studies list [--json]
       studies close <id> [--json]`,
  help: `  create    prints {id}. --tasks are 0-based positions in the dataset, worked in that order
            (--assign fixed), in a seeded random order per participant (random), or in rows of a
            Latin square (balanced: each task equally often at each position).
            --feedback: none (no outcome shown), reward (reward after each turn and after submit),
            full (also the breakdown and the scored output). --time-limit: active time per task.
  invite    prints {invites:[{participant, url}]}; each url holds a secret shown only now.
            --base-url: the address participants open (default http://IC_HOST:IC_PORT).
  list      every study with its participants' counts.
  close     ends the study: invites stop working and its tasks' seal lifts.`,
  allowPositionals: true,
  options: {
    name: { type: "string" },
    env: { type: "string" },
    dataset: { type: "string" },
    tasks: { type: "string" },
    assign: { type: "string" },
    feedback: { type: "string" },
    "show-gold-after-submit": { type: "boolean" },
    "time-limit": { type: "string" },
    instructions: { type: "string" },
    count: { type: "string" },
    expires: { type: "string" },
    "base-url": { type: "string" },
    json: { type: "boolean" },
  },
  async run({ values, positionals }) {
    const [sub, ...rest] = positionals;
    const { createStudyFromSelection, listStudyViews, closeStudy } = await import("@/lib/studies/studies");
    const { inviteParticipants, listParticipants, parseDuration } = await import("@/lib/studies/participants");
    if (sub === "create") {
      if (rest.length) throw new BadInputError(`unexpected argument ${JSON.stringify(rest[0])}`, "arguments");
      const f = parseFlags(createFlags, values);
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
      const f = parseFlags(inviteFlags, values);
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
      else for (const s of studies) process.stdout.write(`${s.id}  ${s.name}  ${s.env}/${s.dataset}  ${s.tasks} tasks  ${s.participants} participants (${s.completed} done)${s.closed ? "  closed" : ""}\n`);
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
