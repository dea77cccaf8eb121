import { createInterface } from "node:readline";
import { defineCommand, log, printJson } from "../command";
import { BadInputError } from "@/lib/errors";
import { envNameSchema } from "@/lib/datasets/types";
import type { EnvironmentOptions, SubmitResult } from "@/lib/env/types";

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
  usage: "play --env <bash|sql|python|ctf> --task <id|dataset/id> [--dataset D] [--backend local|docker|auto] [--json]",
  help: [
    "  --env ENV        the environment",
    "  --task ID        the task: an id in --dataset (default demo-<env>), or dataset/id",
    "  --dataset D      the dataset the id belongs to",
    "  --backend B      sandbox backend: local, docker or auto (default auto)",
    "  --sql-url URL    sql: a MySQL-compatible server (default: $IC_SQL_URL, else embedded SQLite)",
    "  --json           print each step and the submit result as one JSON line",
    "",
    "Type `submit` (bash, sql), `submit <function_name>` (python) or `submit <flag>` (ctf) to end",
    "the episode and print the reward and its breakdown. End of input without a submit ends the",
    "episode unscored. Ctrl+C stops the running action; the episode goes on.",
  ].join("\n"),
  options: {
    env: { type: "string" },
    task: { type: "string" },
    dataset: { type: "string" },
    backend: { type: "string" },
    "sql-url": { type: "string" },
    json: { type: "boolean" },
  },
  async run({ values }) {
    const envParsed = envNameSchema.safeParse(values.env);
    if (!envParsed.success) throw new BadInputError("--env must be one of bash, sql, python, ctf", "--env");
    const env = envParsed.data;
    if (typeof values.task !== "string" || !values.task) throw new BadInputError("--task is required", "--task");
    const backend = (values.backend as string | undefined) ?? "auto";
    if (!["local", "docker", "auto"].includes(backend)) throw new BadInputError("--backend must be local, docker or auto", "--backend");
    const json = Boolean(values.json);
    const { findTask, getTask } = await import("@/lib/datasets/registry");
    const task = values.dataset ? getTask(values.dataset as string, values.task) : findTask(env, values.task);
    if (task.env !== env) throw new BadInputError(`task ${task.dataset}/${task.id} is a ${task.env} task`, "--task");
    const { createEnvironment } = await import("@/lib/env/index");
    const environment = await createEnvironment(env, { backend: backend as EnvironmentOptions["backend"], sqlUrl: values["sql-url"] as string | undefined });
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
