import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseInput } from "@/lib/http/respond";
import { CONNECTION_TEST_PROMPT, testModelConnection } from "./connection-test";
import { addModelInputSchema } from "./model-config";
import { addModel, listModels } from "./models";
import { freePort } from "@/lib/testing/studio-server";
import { startScriptedServer, type ScriptedServer } from "./scripted-server";


describe("test connection", () => {
  let server: ScriptedServer;
  let sources: { dir: string; file: string; env: Record<string, string> };
  beforeAll(async () => {
    server = await startScriptedServer({ rules: [{ match: CONNECTION_TEST_PROMPT, replies: ["OK"] }], apiKey: "sk-right" });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-conn-"));
    const file = path.join(dir, "models.config.json");
    fs.writeFileSync(file, JSON.stringify({ models: [] }));
    sources = { dir, file, env: {} };
  });
  afterAll(async () => {
    await server.close();
    fs.rmSync(sources.dir, { recursive: true, force: true });
  });
  const add = (body: Record<string, unknown>) => addModel(parseInput(addModelInputSchema, { provider: "openai-compatible", ...body }, "body"), sources);

  it("ok with the latency, sending the stored key; the result becomes the model's last test", async () => {
    add({ id: "good", baseURL: server.baseURL, model: "scripted", apiKey: "sk-right" });
    const before = server.requests.length;
    const r = await testModelConnection("good", sources);
    expect(r).toMatchObject({ ok: true, message: "OK" });
    expect(r.latencyMs).toBeGreaterThanOrEqual(0);
    // One tiny request, no retries.
    expect(server.requests.length - before).toBe(1);
    expect(listModels(sources).find((m) => m.id === "good")).toMatchObject({ status: "ok", lastTest: { ok: true } });
  });

  it("a bad key shows the provider's 401 and its message, after one request", async () => {
    add({ id: "bad-key", baseURL: server.baseURL, model: "scripted", apiKey: "sk-wrong" });
    const before = server.requests.length;
    const r = await testModelConnection("bad-key", sources);
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(/HTTP 401/);
    expect(r.message).toContain("Incorrect API key provided (scripted)");
    expect(r.message).not.toContain("sk-wrong");
    expect(server.requests.length - before).toBe(1);
    expect(listModels(sources).find((m) => m.id === "bad-key")?.status).toBe("failed");
  });

  it("an endpoint with nothing listening is refused, with the connection error", async () => {
    add({ id: "nobody", baseURL: `http://127.0.0.1:${await freePort()}/v1`, model: "scripted" });
    const r = await testModelConnection("nobody", sources);
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(/^provider unreachable: .*(ECONNREFUSED|Cannot connect)/i);
    expect(listModels(sources).find((m) => m.id === "nobody")?.status).toBe("failed");
  });

  it("a refused reply is an error with the provider's words", async () => {
    server.setScript({ rules: [{ match: CONNECTION_TEST_PROMPT, replies: ["OK"], faults: [{ kind: "refusal", times: 1 }] }], apiKey: "sk-right" });
    const r = await testModelConnection("good", sources);
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(/refused to answer: I can't help with that request \(scripted refusal\)/);
  });
});
