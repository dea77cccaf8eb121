import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConflictError } from "@/lib/errors";
import { parseInput } from "@/lib/http/respond";
import { keyFilePath } from "./key-store";
import { addModelInputSchema } from "./model-config";
import { addModel, listModels, publicModelView, removeModel, resolveModel } from "./models";

const dirs: string[] = [];
function sandbox() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-added-"));
  dirs.push(dir);
  const file = path.join(dir, "models.config.json");
  fs.writeFileSync(
    file,
    JSON.stringify({
      models: [
        {
          id: "local-preset",
          provider: "openai-compatible",
          model: "default",
          baseURL: "http://127.0.0.1:9/v1",
          contextWindow: 8192,
          price: { inputPerMtok: 0, outputPerMtok: 0 },
        },
        {
          id: "gpt-4o",
          provider: "openai",
          model: "gpt-4o",
          apiKeyEnv: "OPENAI_API_KEY",
          contextWindow: 128000,
          price: { inputPerMtok: 2.5, outputPerMtok: 10 },
        },
      ],
    }),
  );
  return { dir, file, env: {} };
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const add = (body: unknown, sources: ReturnType<typeof sandbox>) => addModel(parseInput(addModelInputSchema, body, "body"), sources);

describe("models added in the page", () => {
  it("lists an added model with its key set (stored, 0600) and never the key itself", () => {
    const s = sandbox();
    const m = add({ provider: "openai-compatible", baseURL: "http://127.0.0.1:5555/v1/", model: "qwen-coder", apiKey: "sk-added-secret" }, s);
    expect(m).toMatchObject({ id: "qwen-coder", source: "added", keySet: true, keySource: "stored", status: "untested", baseURL: "http://127.0.0.1:5555/v1" });
    expect(fs.statSync(keyFilePath(s.dir)).mode & 0o777).toBe(0o600);
    const listed = listModels(s);
    expect(listed.map((x) => x.id)).toEqual(["local-preset", "gpt-4o", "qwen-coder"]);
    expect(JSON.stringify(listed.map(publicModelView))).not.toContain("sk-added-secret");
    expect(JSON.stringify(listed)).not.toContain("sk-added-secret");
    // The models file beside the store holds no key either.
    for (const f of fs.readdirSync(s.dir).filter((f) => f !== "model-keys.json")) {
      expect(fs.readFileSync(path.join(s.dir, f), "utf8")).not.toContain("sk-added-secret");
    }
    expect(resolveModel("qwen-coder", s).info.keySource).toBe("stored");
  });

  it("a preset with nothing to miss is 'untested', not ready, until a test ran", () => {
    const preset = listModels(sandbox()).find((m) => m.id === "local-preset")!;
    expect(preset.available).toBe(true);
    expect(preset.status).toBe("untested");
    expect(preset.lastTest).toBeNull();
  });

  it("an Anthropic model without a key is listed as needing one; a key in an allowed variable counts", () => {
    const s = sandbox();
    expect(add({ provider: "anthropic", model: "claude-x" }, s)).toMatchObject({ keySet: false, available: false, status: "no-key" });
    // OPENAI_API_KEY is named by the models file, so an added model may use it.
    const viaEnv = addModel(parseInput(addModelInputSchema, { provider: "google", model: "gemini-x", apiKeyEnv: "OPENAI_API_KEY" }, "body"), {
      ...s,
      env: { OPENAI_API_KEY: "g-key" },
    });
    expect(viaEnv).toMatchObject({ keySet: true, keySource: "env", available: true });
  });

  it("refuses a key variable outside the allowlist, naming the field (finding 1: any variable could be sent out)", () => {
    const s = sandbox();
    const env = { MY_CLOUD_SECRET: "cloud-secret", IC_TOKEN: "t".repeat(40) };
    for (const name of ["MY_CLOUD_SECRET", "IC_TOKEN", "HOME"]) {
      const body = { provider: "openai-compatible", model: "m", baseURL: "http://127.0.0.1:9/v1", apiKeyEnv: name };
      expect(() => addModel(parseInput(addModelInputSchema, body, "body"), { ...s, env })).toThrow(
        expect.objectContaining({
          where: "apiKeyEnv",
          message: expect.stringMatching(new RegExp(`^apiKeyEnv: ${name} is not a variable a model may take its key from: use OPENAI_API_KEY`)),
        }),
      );
    }
    // IC_MODEL_KEY_ENV widens the list.
    process.env.IC_MODEL_KEY_ENV = "MY_CLOUD_SECRET";
    try {
      const ok = addModel(parseInput(addModelInputSchema, { provider: "google", model: "g2", apiKeyEnv: "MY_CLOUD_SECRET" }, "body"), { ...s, env });
      expect(ok).toMatchObject({ keySource: "env", available: true });
    } finally {
      delete process.env.IC_MODEL_KEY_ENV;
    }
    // An entry written before the allowlist gets no key from its variable, and says why.
    const listed = listModels({ ...s, env }).find((m) => m.id === "g2")!;
    expect(listed).toMatchObject({ keySource: null, available: false });
    expect(listed.reason).toMatch(/apiKeyEnv MY_CLOUD_SECRET is not a key variable of this Studio/);
    expect(() => resolveModel("g2", { ...s, env })).toThrow(/not a key variable/);
  });

  it("takes name@host when the name is a configured id, refuses a configured id given explicitly, and removes only added models", () => {
    const s = sandbox();
    expect(add({ provider: "openai", model: "gpt-4o", apiKey: "sk-mine" }, s).id).toBe("gpt-4o@openai");
    expect(() => add({ provider: "openai", model: "gpt-4o", id: "gpt-4o", apiKey: "k" }, s)).toThrow(ConflictError);
    expect(() => removeModel("gpt-4o", s)).toThrow(ConflictError);
    removeModel("gpt-4o@openai", s);
    expect(listModels(s).map((m) => m.id)).toEqual(["local-preset", "gpt-4o"]);
    expect(fs.readFileSync(keyFilePath(s.dir), "utf8")).not.toContain("sk-mine");
  });

  it("refuses a malformed URL, an unknown provider and an empty name, naming the field", () => {
    const bad = (body: unknown) => {
      try {
        parseInput(addModelInputSchema, body, "body");
      } catch (err) {
        return (err as Error).message;
      }
      return "accepted";
    };
    expect(bad({ provider: "openai-compatible", baseURL: "http://exa mple/v1", model: "m" })).toMatch(/^body baseURL: not a valid URL/);
    expect(bad({ provider: "openai-compatible", baseURL: "localhost:8000", model: "m" })).toMatch(/^body baseURL: must be an http/);
    expect(bad({ provider: "openai-compatible", baseURL: "ftp://example.com/v1", model: "m" })).toMatch(/^body baseURL: must be an http/);
    expect(bad({ provider: "cohere", model: "m" })).toMatch(/^body provider: unknown provider/);
    expect(bad({ provider: "openai", model: "  " })).toMatch(/^body model: the model name is empty/);
    expect(bad({ provider: "openai-compatible", model: "m" })).toMatch(/^body baseURL: an OpenAI-compatible endpoint needs its base URL/);
    expect(bad({ provider: "openai", model: "m", apiKeyEnv: "not a name" })).toMatch(/^body apiKeyEnv:/);
  });
});
