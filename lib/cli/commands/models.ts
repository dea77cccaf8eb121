import { defineCommand, printJson } from "../command";

export default defineCommand({
  name: "models",
  summary: "List the configured models (models.config.json or IC_MODELS_CONFIG) and whether each can be used here.",
  usage: "models [--json]",
  options: { json: { type: "boolean" } },
  async run({ values }) {
    const { listModels, modelsConfigPath } = await import("@/lib/agent/models");
    const models = listModels();
    if (values.json) {
      printJson({ file: modelsConfigPath(), models: models.map(({ id, provider, model, baseURL, contextWindow, price, available, reason }) => ({ id, provider, model, baseURL, contextWindow, price, available, reason })) });
      return 0;
    }
    const w = Math.max(...models.map((m) => m.id.length), 2);
    for (const m of models) {
      const where = m.baseURL ? ` @ ${m.baseURL}` : "";
      process.stdout.write(`${m.id.padEnd(w)}  ${m.available ? "available  " : "unavailable"}  ${m.provider}:${m.model}${where}${m.reason ? `  (${m.reason})` : ""}\n`);
    }
    return 0;
  },
});
