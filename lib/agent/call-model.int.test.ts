import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProviderError } from "@/lib/errors";
import { backoffDelay, callModel, defaultRetry } from "./call-model";
import { resolveModel } from "./models";
import { startScriptedServer, type ScriptedServer } from "./scripted-server";

const FAST = { baseDelayMs: 5, maxDelayMs: 50, timeoutMs: 1500, attempts: 3 };

describe("callModel against the scripted OpenAI-compatible server", () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer({ rules: [] });
  });
  afterAll(async () => server.close());

  const model = () => resolveModel("scripted", { adhoc: { baseURL: server.baseURL, apiKey: "k" } });

  for (const stream of [false, true]) {
    it(`gets the scripted reply and usage (stream ${stream})`, async () => {
      server.setScript({ rules: [{ match: "count the rows", replies: ["first ```sql\nSELECT 1\n```", "second"] }] });
      const deltas: string[] = [];
      const r = await callModel(model(), {
        system: "sys",
        messages: [{ role: "user", content: "Please count the rows" }],
        stream,
        onDelta: (d) => deltas.push(d),
      });
      expect(r.text).toBe("first ```sql\nSELECT 1\n```");
      expect(r.tokensIn).toBeGreaterThan(0);
      expect(r.tokensOut).toBe(Math.ceil(r.text.length / 4));
      if (stream) expect(deltas.join("")).toBe(r.text);
      const r2 = await callModel(model(), {
        system: "sys",
        messages: [
          { role: "user", content: "Please count the rows" },
          { role: "assistant", content: r.text },
          { role: "user", content: "obs" },
        ],
        stream,
      });
      expect(r2.text).toBe("second");
    });
  }

  for (const kind of ["429", "500", "malformed", "empty", "hang"] as const) {
    it(`recovers from ${kind} within the retry budget`, async () => {
      server.setScript({ rules: [{ match: `fault ${kind}`, replies: ["ok"], faults: [{ kind, times: 2, hangMs: 5_000 }] }] });
      const retries: string[] = [];
      const r = await callModel(model(), {
        system: "s",
        messages: [{ role: "user", content: `fault ${kind}` }],
        retry: FAST,
        onRetry: ({ error }) => retries.push(String(error.details?.kind)),
      });
      expect(r.text).toBe("ok");
      expect(r.attempts).toBe(3);
      expect(retries).toHaveLength(2);
    });
  }

  it("gives up with a ProviderError after its attempts", async () => {
    server.setScript({ rules: [{ match: "always down", replies: ["never"], faults: [{ kind: "500", times: 99 }] }] });
    const err = await callModel(model(), { system: "s", messages: [{ role: "user", content: "always down" }], retry: FAST }).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.details.attempts).toBe(3);
    expect(err.message).toMatch(/HTTP 500/);
  });

  it("does not retry a client error such as 404", async () => {
    server.setScript({ rules: [] });
    const err = await callModel(model(), { system: "s", messages: [{ role: "user", content: "nothing matches" }], retry: FAST }).catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.retryable).toBe(false);
    expect(err.details.attempts).toBe(1);
  });

  it("honours retry-after", async () => {
    server.setScript({ rules: [{ match: "slow down", replies: ["ok"], faults: [{ kind: "429", times: 1, retryAfterSec: 0.2 }] }] });
    const t0 = performance.now();
    await callModel(model(), { system: "s", messages: [{ role: "user", content: "slow down" }], retry: { ...FAST, maxDelayMs: 1000 } });
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
  });
});

describe("backoffDelay", () => {
  it("doubles, jitters within [half, full] and caps", () => {
    const p = { ...defaultRetry(), baseDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelay(1, p, undefined, () => 0)).toBe(50);
    expect(backoffDelay(1, p, undefined, () => 1)).toBe(100);
    expect(backoffDelay(3, p, undefined, () => 1)).toBe(400);
    expect(backoffDelay(10, p, undefined, () => 1)).toBe(1000);
    expect(backoffDelay(1, p, 700, () => 0)).toBe(700);
  });
});
