import fs from "node:fs";
import { z } from "zod";
import { defineCommand, log } from "../command";
import { BadInputError } from "@/lib/errors";

export default defineCommand({
  name: "scripted-server",
  summary: "Serve scripted replies as an OpenAI-compatible endpoint (for demos and tests without a model API).",
  flags: z.object({
    script: z
      .string()
      .describe(
        "JSON: {rules: [{match | taskId, replies: [...], faults?: [{kind, times, turn?}]}], fallback?, delayMs?}\n" +
          "a rule matches when a message contains `match` (e.g. the task's query); the reply is chosen by\n" +
          "how many assistant messages the conversation holds. Fault kinds: 429 500 hang malformed empty.",
      )
      .meta({ value: "FILE" }),
    port: z.coerce.number().int().min(0).max(65535).optional().describe("port on 127.0.0.1 (default: a free one)"),
  }),
  help: "Then: icstudio eval --base-url <printed URL> ...",
  async run({ values }) {
    const { parseScriptFile, startScriptedServer } = await import("@/lib/agent/scripted-server");
    const file = values.script;
    let json: unknown;
    try {
      json = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch (err) {
      throw new BadInputError(`cannot read: ${(err as Error).message}`, file);
    }
    const server = await startScriptedServer(parseScriptFile(json, file), { port: values.port });
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
