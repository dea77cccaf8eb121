import "server-only";
import { asStudioError, NotFoundError } from "@/lib/errors";
import { saveConnectionTest } from "./added-models";
import type { ConnectionTest } from "./model-view";
import { callModel } from "./call-model";
import { redactSecrets } from "./redact";
import { storeDir } from "./key-store";
import { listModels, resolveModel, type ModelSources } from "./models";

/** The one message a connection test sends. */
export const CONNECTION_TEST_PROMPT = "Connection test from InterCode Studio. Reply with the word OK.";
/** How long a connection test waits for the reply. */
export const CONNECTION_TEST_TIMEOUT_MS = 20_000;

/**
 * Tests a model's connection with one tiny request (a one-line prompt, a few reply tokens, no
 * retries) and stores the result as the model's last test. Never throws for the provider's
 * failure: that is the result (`ok: false` with the provider's message).
 * @throws NotFoundError for an unknown model id.
 */
export async function testModelConnection(id: string, sources: ModelSources = {}): Promise<ConnectionTest> {
  const env = sources.env ?? process.env;
  const dir = sources.dir ?? storeDir();
  const info = listModels({ ...sources, env, dir }).find((m) => m.id === id);
  if (!info) throw new NotFoundError(`model ${JSON.stringify(id)}`);
  const started = performance.now();
  let result: ConnectionTest;
  let secrets: string[] = [];
  try {
    const model = resolveModel(id, { ...sources, env, dir });
    secrets = model.secrets ?? [];
    const r = await callModel(
      { ...model, info: { ...model.info, maxOutputTokens: 16 } },
      {
        system: "You are being tested for connectivity.",
        messages: [{ role: "user", content: CONNECTION_TEST_PROMPT }],
        retry: { attempts: 1, timeoutMs: CONNECTION_TEST_TIMEOUT_MS },
      },
    );
    result = { ok: true, latencyMs: Math.round(r.latencyMs), message: r.text.trim().slice(0, 200), at: new Date().toISOString() };
  } catch (err) {
    const e = asStudioError(err);
    result = { ok: false, latencyMs: Math.round(performance.now() - started), message: e.message, at: new Date().toISOString() };
  }
  result = { ...result, message: redactSecrets(result.message, secrets) };
  saveConnectionTest(id, result, dir);
  return result;
}
