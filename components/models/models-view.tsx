"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";
import { sendJson } from "@/components/replay/use-author";
import { PROVIDER_LABELS, PROVIDERS, type Provider } from "@/lib/agent/model-config";
import type { ConnectionTest, PublicModel } from "@/lib/agent/model-view";

const STATUS_TEXT: Record<PublicModel["status"], string> = {
  "no-key": "no key",
  untested: "untested",
  ok: "ok",
  failed: "failed",
};

function keyText(m: PublicModel): string {
  if (m.keySource === "stored") return "set (stored on the server)";
  if (m.keySource === "env") return `set (${m.apiKeyEnv})`;
  if (m.apiKeyEnv) return `not set (${m.apiKeyEnv})`;
  return m.available ? "none needed" : "not set";
}

function testText(t: ConnectionTest): string {
  return t.ok ? `ok · ${t.latencyMs} ms` : `error: ${t.message}`;
}

const input = "w-full rounded border border-zinc-700 bg-zinc-900 px-2 py-1 text-sm text-zinc-100";

/**
 * The models page: every model with its provider, endpoint, whether a key is set and its last
 * connection test; a form to add one (the key is sent once and never comes back); a connection
 * test per model.
 */
export function ModelsView({ initial, configFile }: { initial: PublicModel[]; configFile: string }) {
  const [models, setModels] = useState(initial);
  const [adding, setAdding] = useState(false);
  const [testing, setTesting] = useState<Record<string, boolean>>({});
  const [rowError, setRowError] = useState<Record<string, string>>({});

  const reload = async () => setModels((await sendJson<{ models: PublicModel[] }>("/api/models", "GET")).models);

  const test = async (id: string) => {
    setTesting((t) => ({ ...t, [id]: true }));
    setRowError((e) => ({ ...e, [id]: "" }));
    try {
      const { test } = await sendJson<{ test: ConnectionTest }>(`/api/models/${encodeURIComponent(id)}/test`, "POST");
      setModels((ms) => ms.map((m) => (m.id === id ? { ...m, lastTest: test, status: test.ok ? "ok" : "failed" } : m)));
    } catch (err) {
      setRowError((e) => ({ ...e, [id]: (err as Error).message }));
    } finally {
      setTesting((t) => ({ ...t, [id]: false }));
    }
  };

  const remove = async (id: string) => {
    try {
      await sendJson(`/api/models/${encodeURIComponent(id)}`, "DELETE");
      await reload();
    } catch (err) {
      setRowError((e) => ({ ...e, [id]: (err as Error).message }));
    }
  };

  return (
    <div className="space-y-4 p-4" data-testid="models-page">
      <div className="flex items-baseline gap-4">
        <h1 className="text-lg font-semibold">Models</h1>
        <p className="text-xs text-zinc-400">
          Configured in <code>{configFile}</code> or added here. Keys stay on the server: a key entered here is kept in a file only the server&apos;s user can
          read, and is never shown again.
        </p>
        <Button className="ml-auto" variant="primary" onClick={() => setAdding((a) => !a)} data-testid="model-add" aria-expanded={adding}>
          {adding ? "close" : "add a model"}
        </Button>
      </div>
      {adding && (
        <AddModelForm
          onSaved={async (id) => {
            await reload();
            setAdding(false);
            requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-model-id="${CSS.escape(id)}"] [data-testid="model-test"]`)?.focus());
          }}
        />
      )}
      <table className="w-full text-left text-sm" data-testid="models-table">
        <caption className="sr-only">Models</caption>
        <thead className="text-xs text-zinc-400">
          <tr>
            <th scope="col" className="py-1 pr-3">
              model
            </th>
            <th scope="col" className="pr-3">
              provider
            </th>
            <th scope="col" className="pr-3">
              endpoint
            </th>
            <th scope="col" className="pr-3">
              key
            </th>
            <th scope="col" className="pr-3">
              connection
            </th>
            <th scope="col">
              <span className="sr-only">actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {models.map((m) => (
            <tr key={m.id} className="border-t border-zinc-800 align-top" data-testid="model-row" data-model-id={m.id} data-status={m.status}>
              <td className="py-1.5 pr-3">
                <div className="font-mono">{m.id}</div>
                <div className="text-xs text-zinc-400">
                  {m.model !== m.id ? m.model : ""}
                  {m.source === "added" ? " added here" : ""}
                </div>
              </td>
              <td className="pr-3">{PROVIDER_LABELS[m.provider]}</td>
              <td className="break-all pr-3 font-mono text-xs">{m.baseURL ?? "provider default"}</td>
              <td className="pr-3 text-xs" data-testid="model-key">
                {keyText(m)}
              </td>
              <td className="pr-3 text-xs">
                <span
                  data-testid="model-status"
                  className={m.status === "ok" ? "text-emerald-400" : m.status === "failed" || m.status === "no-key" ? "text-red-400" : "text-zinc-300"}
                >
                  {STATUS_TEXT[m.status]}
                </span>
                <div data-testid="model-test-result" role="status" className={`break-words ${m.lastTest?.ok ? "text-emerald-400" : "text-red-300"}`}>
                  {testing[m.id] ? "testing…" : m.lastTest ? testText(m.lastTest) : ""}
                </div>
                {m.lastTest && <div className="text-zinc-400">tested {new Date(m.lastTest.at).toLocaleString()}</div>}
                {rowError[m.id] && (
                  <div className="text-red-300" role="alert">
                    {rowError[m.id]}
                  </div>
                )}
              </td>
              <td className="whitespace-nowrap py-1.5 text-right">
                <Button
                  onClick={() => void test(m.id)}
                  disabled={testing[m.id] || !m.available}
                  title={m.reason ?? "send one tiny request"}
                  data-testid="model-test"
                >
                  test connection
                </Button>
                {m.source === "added" && (
                  <Button className="ml-1" variant="danger" onClick={() => void remove(m.id)} data-testid="model-remove">
                    remove
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function AddModelForm({ onSaved }: { onSaved: (id: string) => Promise<void> }) {
  const [provider, setProvider] = useState<Provider>("openai-compatible");
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  /** Saves tried so far: the error says which one it answers. */
  const [attempt, setAttempt] = useState(0);

  const submit = async (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const text = (k: string) => String(form.get(k) ?? "");
    const price = (k: string) => (text(k).trim() === "" ? undefined : Number(text(k)));
    const inPrice = price("priceIn");
    const outPrice = price("priceOut");
    setSaving(true);
    setError(null);
    setAttempt((a) => a + 1);
    try {
      const { model } = await sendJson<{ model: PublicModel }>("/api/models", "POST", {
        provider,
        baseURL: text("baseURL"),
        model: text("model"),
        id: text("id"),
        apiKey: text("apiKey"),
        apiKeyEnv: text("apiKeyEnv"),
        ...(inPrice !== undefined || outPrice !== undefined ? { price: { inputPerMtok: inPrice ?? 0, outputPerMtok: outPrice ?? 0 } } : {}),
      });
      await onSaved(model.id);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setSaving(false);
    }
  };

  return (
    <form
      onSubmit={(e) => void submit(e)}
      className="grid max-w-3xl gap-3 rounded border border-zinc-800 p-3 sm:grid-cols-2"
      data-testid="model-form"
      noValidate
    >
      <label className="text-xs text-zinc-400">
        provider
        <select name="provider" value={provider} onChange={(e) => setProvider(e.target.value as Provider)} className={input} data-testid="model-provider">
          {PROVIDERS.map((p) => (
            <option key={p} value={p}>
              {PROVIDER_LABELS[p]}
            </option>
          ))}
        </select>
      </label>
      <label className="text-xs text-zinc-400">
        base URL{provider === "openai-compatible" ? "" : " (optional: the provider's default)"}
        <input
          name="baseURL"
          type="url"
          className={input}
          placeholder={provider === "openai-compatible" ? "http://127.0.0.1:8000/v1" : ""}
          data-testid="model-base-url"
          autoComplete="off"
        />
      </label>
      <label className="text-xs text-zinc-400">
        model name
        <input name="model" className={input} placeholder="e.g. qwen2.5-coder-7b" data-testid="model-name" autoComplete="off" required />
      </label>
      <label className="text-xs text-zinc-400">
        id in the Studio (optional: the model name)
        <input name="id" className={input} data-testid="model-id" autoComplete="off" />
      </label>
      <label className="text-xs text-zinc-400">
        API key{provider === "openai-compatible" ? " (optional)" : ""}
        <input name="apiKey" type="password" className={input} data-testid="model-api-key" autoComplete="new-password" />
      </label>
      <label className="text-xs text-zinc-400">
        or the environment variable that holds it
        <input name="apiKeyEnv" className={input} placeholder="e.g. OPENAI_API_KEY" data-testid="model-api-key-env" autoComplete="off" />
      </label>
      <label className="text-xs text-zinc-400">
        price in, $ per million tokens (optional)
        <input name="priceIn" type="number" min="0" step="any" className={input} data-testid="model-price-in" />
      </label>
      <label className="text-xs text-zinc-400">
        price out, $ per million tokens (optional)
        <input name="priceOut" type="number" min="0" step="any" className={input} data-testid="model-price-out" />
      </label>
      <div className="flex items-center gap-3 sm:col-span-2">
        <Button type="submit" variant="primary" disabled={saving} data-testid="model-save">
          {saving ? "saving…" : "save"}
        </Button>
        {error && (
          <p className="text-xs text-red-300" role="alert" data-testid="model-error" data-attempt={attempt}>
            {error}
          </p>
        )}
      </div>
    </form>
  );
}
