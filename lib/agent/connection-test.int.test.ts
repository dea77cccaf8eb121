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

describe("keys and the Studio's own address (finding 9)", () => {
  const KEY = "sk-echo-0123456789abcdefghijklmnop";
  let echo: import("node:http").Server;
  let base: string;
  let dir: string;
  let sources: { dir: string; file: string; env: Record<string, string> };
  beforeAll(async () => {
    const http = await import("node:http");
    // A "provider" that repeats the key it was sent in its error and in its reply.
    echo = http.createServer((req, res) => {
      const auth = String(req.headers.authorization ?? "");
      if (req.url?.includes("fail")) {
        res.writeHead(401, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `invalid key: ${auth}` } }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "x",
          object: "chat.completion",
          created: 0,
          model: "m",
          choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: `OK ${auth}` } }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
    await new Promise<void>((r) => echo.listen(0, "127.0.0.1", () => r()));
    base = `http://127.0.0.1:${(echo.address() as import("node:net").AddressInfo).port}`;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ic-echo-"));
    const file = path.join(dir, "models.config.json");
    fs.writeFileSync(file, JSON.stringify({ models: [] }));
    sources = { dir, file, env: {} };
  });
  afterAll(() => {
    echo.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const add = (body: Record<string, unknown>) => addModel(parseInput(addModelInputSchema, { provider: "openai-compatible", ...body }, "body"), sources);

  it("redacts a key the provider echoes from the stored and shown result; models.added.json is 0600", async () => {
    add({ id: "echo-fail", baseURL: `${base}/fail/v1`, model: "m", apiKey: KEY });
    add({ id: "echo-ok", baseURL: `${base}/v1`, model: "m", apiKey: KEY });
    const failed = await testModelConnection("echo-fail", sources);
    expect(failed.ok).toBe(false);
    expect(failed.message).toMatch(/invalid key: Bearer \[redacted key\]/);
    const ok = await testModelConnection("echo-ok", sources);
    expect(ok).toMatchObject({ ok: true, message: "OK Bearer [redacted key]" });
    const file = path.join(dir, "models.added.json");
    expect(fs.readFileSync(file, "utf8")).not.toContain(KEY);
    expect(JSON.stringify(listModels(sources))).not.toContain(KEY);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it("refuses a model added with the Studio's own address, naming baseURL", async () => {
    const port = await freePort();
    process.env.IC_PORT = String(port);
    try {
      expect(() => add({ id: "self", baseURL: `http://127.0.0.1:${port}/api`, model: "m" })).toThrow(
        expect.objectContaining({ where: "baseURL", message: expect.stringMatching(/this Studio's own address/) }),
      );
      expect(() => add({ id: "self2", baseURL: `http://localhost:${port}/v1`, model: "m" })).toThrow(/own address/);
    } finally {
      delete process.env.IC_PORT;
    }
  });
});
