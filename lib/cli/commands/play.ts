import { createInterface } from "node:readline";
import { z } from "zod";
import { backendSchema, defineCommand, log, printJson } from "../command";
import { BadInputError } from "@/lib/errors";
import { envNameSchema } from "@/lib/datasets/types";
import type { SubmitResult } from "@/lib/env/types";

function printSubmit(r: SubmitResult, json: boolean): void {
  if (json) {
    printJson(r);
    return;
  }
  process.stdout.write(`reward ${r.reward}\n`);
  process.stdout.write(`breakdown ${JSON.stringify(r.breakdown)}\n`);
}

export default defineCommand({
  name: "play",
  summary: "Play one episode from the terminal: actions from stdin, one per line (a trailing backslash continues a line).",
  flags: z.object({
    env: envNameSchema.describe("the environment"),
    task: z.string().min(1).describe("the task: an id in --dataset (default demo-<env>), or dataset/id").meta({ value: "ID" }),
    dataset: z.string().optional().describe("the dataset the id belongs to").meta({ value: "D" }),
    backend: backendSchema.default("auto").describe("sandbox backend"),
    "sql-url": z.string().optional().describe("sql: a MySQL-compatible server (default: $IC_SQL_URL, else embedded SQLite)").meta({ value: "URL" }),
    json: z.boolean().default(false).describe("print each step and the submit result as one JSON line"),
  }),
  help: [
    "Type `submit` (bash, sql), `submit <function_name>` (python) or `submit <flag>` (ctf) to end",
    "the episode and print the reward and its breakdown. End of input without a submit ends the",
    "episode unscored. Ctrl+C stops the running action; the episode goes on.",
  ].join("\n"),
  async run({ values }) {
    const { env, backend, json } = values;
    const { findTask, getTask } = await import("@/lib/datasets/registry");
    const task = values.dataset ? getTask(values.dataset, values.task) : findTask(env, values.task);
    if (task.env !== env) throw new BadInputError(`task ${task.dataset}/${task.id} is a ${task.env} task`, "--task");
    const { createEnvironment } = await import("@/lib/env/index");
    const environment = await createEnvironment(env, { backend, sqlUrl: values["sql-url"] });
    let current: AbortController | null = null;
    const onSigint = () => {
      if (current) current.abort();
      else process.exit(130);
    };
    process.on("SIGINT", onSigint);
    try {
      const { observation } = await environment.reset(task);
      if (json) process.stdout.write(JSON.stringify({ task: `${task.dataset}/${task.id}`, observation }) + "\n");
      else process.stdout.write(`# ${task.dataset}/${task.id}\n${observation}\n`);
      const tty = process.stdin.isTTY;
      const rl = createInterface({ input: process.stdin, terminal: false });
      let pending: string[] = [];
      if (tty) process.stderr.write("> ");
      for await (const line of rl) {
        if (/\\$/.test(line)) {
          pending.push(line.slice(0, -1));
          if (tty) process.stderr.write("… ");
          continue;
        }
        pending.push(line);
        const action = pending.join("\n");
        pending = [];
        if (!action.trim()) {
          if (tty) process.stderr.write("> ");
          continue;
        }
        current = new AbortController();
        const step = await environment.step(action, { signal: current.signal });
        current = null;
        if (step.submitted) {
          printSubmit(step.submitted, json);
          return 0;
        }
        if (json) process.stdout.write(JSON.stringify({ action, ...step }) + "\n");
        else process.stdout.write(step.observation + (step.observation.endsWith("\n") || !step.observation ? "" : "\n"));
        if (tty) process.stderr.write("> ");
      }
      log("end of input: the episode ended without a submit (not scored)");
      return 0;
    } finally {
      process.off("SIGINT", onSigint);
      await environment.close();
      // Warm pools and engine connections would keep the process alive.
      await (await import("./gold-check")).shutdownSandboxes();
    }
  },
});
