import fs from "node:fs";
import { z } from "zod";
import { defineCommand, log } from "../command";
import { BadInputError } from "@/lib/errors";

export default defineCommand({
  name: "scripted-server",
  summary: "Serve scripted replies as an OpenAI-compatible endpoint (for demos and tests without a model API).",
  usage: "scripted-server --script FILE [--port N]",
  help: [
    "--script FILE  JSON: {rules: [{match | taskId, replies: [...], faults?: [{kind, times, turn?}]}], fallback?, delayMs?}",
    "               a rule matches when a message contains `match` (e.g. the task's query); the reply is chosen by",
    "               how many assistant messages the conversation holds. Fault kinds: 429 500 hang malformed empty.",
    "--port N       port on 127.0.0.1 (default: a free one). Then: icstudio eval --base-url <printed URL> ...",
  ].join("\n"),
  options: { script: { type: "string" }, port: { type: "string" } },
  async run({ values }) {
    const { parseScriptFile, startScriptedServer } = await import("@/lib/agent/scripted-server");
    const file = values.script;
    if (typeof file !== "string") throw new BadInputError("is required", "--script");
    let json: unknown;
    try {
      json = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch (err) {
      throw new BadInputError(`cannot read: ${(err as Error).message}`, file);
    }
    const port = values.port === undefined ? undefined : z.coerce.number().int().min(0).max(65535).parse(values.port);
    const server = await startScriptedServer(parseScriptFile(json, file), { port });
    process.stdout.write(`${server.baseURL}\n`);
    log(`scripted server listening on ${server.baseURL} (Ctrl+C to stop)`);
    await new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    await server.close();
    return 0;
  },
});
