import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BadInputError, NotFoundError } from "@/lib/errors";
import { estimateCost, listModels, loadModelsConfig, resolveModel } from "./models";

function tmpConfig(json: unknown): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ic-models-")), "models.json");
  fs.writeFileSync(file, JSON.stringify(json));
  return file;
}

describe("models config", () => {
  it("loads the repository's models.config.json", () => {
    const models = loadModelsConfig();
    expect(models.map((m) => m.provider)).toEqual(expect.arrayContaining(["openai", "anthropic", "google", "openai-compatible"]));
  });

  it("lists a model whose key is missing as unavailable, with the reason, and refuses to resolve it", () => {
    const env = { OPENAI_API_KEY: "" };
    const gpt = listModels({ env }).find((m) => m.id === "gpt-4o")!;
    expect(gpt.available).toBe(false);
    expect(gpt.reason).toMatch(/OPENAI_API_KEY/);
    expect(() => resolveModel("gpt-4o", { env })).toThrow(BadInputError);
    const withKey = listModels({ env: { OPENAI_API_KEY: "sk-test" } }).find((m) => m.id === "gpt-4o")!;
    expect(withKey.available).toBe(true);
    expect(resolveModel("gpt-4o", { env: { OPENAI_API_KEY: "sk-test" } }).info.id).toBe("gpt-4o");
  });

  it("rejects an unknown id and a bad file, naming the field", () => {
    expect(() => resolveModel("no-such-model", { env: {} })).toThrow(NotFoundError);
    const bad = tmpConfig({
      models: [{ id: "x", provider: "openai-compatible", model: "m", contextWindow: 10, price: { inputPerMtok: 0, outputPerMtok: 0 } }],
    });
    expect(() => loadModelsConfig(bad)).toThrow(/models\.0\.baseURL/);
    const dup = tmpConfig({
      models: [1, 2].map(() => ({ id: "x", provider: "openai", model: "m", contextWindow: 10, price: { inputPerMtok: 0, outputPerMtok: 0 } })),
    });
    expect(() => loadModelsConfig(dup)).toThrow(/duplicate model id/);
  });

  it("makes an ad-hoc OpenAI-compatible model from --base-url", () => {
    const m = resolveModel("qwen2.5-coder", { adhoc: { baseURL: "http://127.0.0.1:9999/v1/", apiKey: "k" } });
    expect(m.info).toMatchObject({ id: "adhoc:qwen2.5-coder@127.0.0.1:9999", provider: "openai-compatible", baseURL: "http://127.0.0.1:9999/v1" });
    expect(() => resolveModel(undefined, { adhoc: { baseURL: "not a url" } })).toThrow(/--base-url/);
  });

  it("estimates cost from the price per million tokens", () => {
    expect(estimateCost({ price: { inputPerMtok: 2.5, outputPerMtok: 10 } }, 1_000_000, 500_000)).toBeCloseTo(7.5);
  });
});
