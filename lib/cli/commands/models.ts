import { z } from "zod";
import { defineCommand, printJson } from "../command";

export default defineCommand({
  name: "models",
  summary: "List the models (models.config.json or IC_MODELS_CONFIG, and those added in the /models page): whether a key is set and the last connection test.",
  flags: z.object({
    json: z.boolean().default(false).describe("{file, models: [...]} on stdout"),
  }),
  async run({ values }) {
    const { listModels, modelsConfigPath, publicModelView } = await import("@/lib/agent/models");
    const models = listModels();
    if (values.json) {
      printJson({ file: modelsConfigPath(), models: models.map(publicModelView) });
      return 0;
    }
    const w = Math.max(...models.map((m) => m.id.length), 2);
    for (const m of models) {
      const where = m.baseURL ? ` @ ${m.baseURL}` : "";
      // "untested" rather than "available": an entry with nothing missing may still have nothing listening.
      const test = m.lastTest ? (m.lastTest.ok ? `  (ok, ${m.lastTest.latencyMs} ms)` : `  (${m.lastTest.message})`) : "";
      process.stdout.write(`${m.id.padEnd(w)}  ${m.status.padEnd(8)}  ${m.provider}:${m.model}${where}${m.reason ? `  (${m.reason})` : ""}${test}\n`);
    }
    return 0;
  },
});
