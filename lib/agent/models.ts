import "server-only";
import fs from "node:fs";
import { z } from "zod";
import type { LanguageModel } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { config } from "@/lib/config";
import { BadInputError, ConflictError, NotFoundError } from "@/lib/errors";
import { listAddedModels, listConnectionTests, removeAddedModel, saveAddedModel } from "./added-models";
import { deleteStoredKey, getStoredKey, listStoredKeyIds, setStoredKey, storeDir } from "./key-store";
import { modelConfigSchema, type AddModelInput, type ModelConfig } from "./model-config";
import type { ConnectionTest, ModelSource, ModelStatus, PublicModel } from "./model-view";

/**
 * Models and their endpoints: those configured in `models.config.json` at the repository root (or
 * the file named by IC_MODELS_CONFIG) and those added in the models page (added-models.ts, beside
 * the store). A key comes from the key store (key-store.ts, for models added with a key) or from
 * the environment variable the model names; never from a models file.
 */

/** Environment variables as read here (process.env or a test's own). */
export type EnvVars = Record<string, string | undefined>;

export const modelsFileSchema = z.object({ $comment: z.string().optional(), models: z.array(modelConfigSchema) });

/** A model and whether it can be used here. Holds no key, only whether one is set. */
export interface ModelInfo extends ModelConfig {
  /** Where the entry comes from: the models file, the models page, or the command line. */
  source: ModelSource;
  /** Whether a key is set (in the key store or in the named environment variable). */
  keySet: boolean;
  /** "stored": the key store; "env": the variable apiKeyEnv; null: no key. */
  keySource: "stored" | "env" | null;
  /** A key is set, or none is needed. */
  available: boolean;
  /** Why it cannot be used (missing key), when `available` is false. */
  reason?: string;
  /** The last connection test, if one ran. */
  lastTest: ConnectionTest | null;
  status: ModelStatus;
}

/** Where listModels and resolveModel look: the environment, the models file, the store's folder. */
export interface ModelSources {
  env?: EnvVars;
  file?: string;
  /** The folder of the key store and the added models (default: the store's folder, from IC_DB). */
  dir?: string;
}

/** Path of the models file in use. */
export function modelsConfigPath(): string {
  return config().modelsConfig;
}

/** Reads and validates the models file; a bad file is a BadInputError naming the entry and field. */
export function loadModelsConfig(file = modelsConfigPath()): ModelConfig[] {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw new BadInputError(`cannot read models file: ${(err as Error).message}`, file);
  }
  const parsed = modelsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new BadInputError(issue.message, `${file}: ${issue.path.join(".")}`);
  }
  const seen = new Set<string>();
  for (const [i, m] of parsed.data.models.entries()) {
    if (seen.has(m.id)) throw new BadInputError(`duplicate model id ${JSON.stringify(m.id)}`, `${file}: models.${i}.id`);
    seen.add(m.id);
  }
  return parsed.data.models;
}

/**
 * The environment variables a model's key may come from: those the models file names (the
 * operator chose them) and IC_MODEL_KEY_ENV. A model added in the page that names any other
 * variable gets no key from it: otherwise whoever can add a model could send any of the
 * server's variables (IC_TOKEN, a cloud secret) to an address of their choosing.
 */
export function allowedKeyEnv(configured: ModelConfig[]): Set<string> {
  return new Set([...configured.flatMap((m) => (m.apiKeyEnv ? [m.apiKeyEnv] : [])), ...config().modelKeyEnv]);
}

function describe(
  m: ModelConfig,
  source: ModelInfo["source"],
  env: EnvVars,
  storedKeys: Set<string>,
  tests: Record<string, ConnectionTest>,
  allowedEnv: Set<string>,
): ModelInfo {
  const envAllowed = m.apiKeyEnv !== undefined && allowedEnv.has(m.apiKeyEnv);
  const keySource = storedKeys.has(m.id) ? "stored" : m.apiKeyEnv && envAllowed && env[m.apiKeyEnv] ? "env" : null;
  const keySet = keySource !== null;
  const needsKey = !m.apiKeyOptional && (source === "added" ? m.provider !== "openai-compatible" : m.apiKeyEnv !== undefined);
  const available = keySet || !needsKey;
  const lastTest = tests[m.id] ?? null;
  const status: ModelStatus = !available ? "no-key" : !lastTest ? "untested" : lastTest.ok ? "ok" : "failed";
  const reason = available
    ? undefined
    : m.apiKeyEnv && !envAllowed
      ? `apiKeyEnv ${m.apiKeyEnv} is not a key variable of this Studio (those models.config.json names, or IC_MODEL_KEY_ENV)`
      : m.apiKeyEnv
        ? `set ${m.apiKeyEnv} to use this model`
        : "no API key: add one in the models page";
  return { ...m, source, keySet, keySource, available, ...(reason ? { reason } : {}), lastTest, status };
}

/**
 * Every model, configured then added, each with whether a key is set and its last connection
 * test. Never throws for a missing key. An added model whose id the models file now also uses is
 * left out (the file wins).
 */
export function listModels(options: ModelSources = {}): ModelInfo[] {
  const env = options.env ?? process.env;
  const dir = options.dir ?? storeDir();
  const configured = loadModelsConfig(options.file ?? modelsConfigPath());
  const ids = new Set(configured.map((m) => m.id));
  const added = listAddedModels(dir).filter((m) => !ids.has(m.id));
  const storedKeys = listStoredKeyIds(dir);
  const tests = listConnectionTests(dir);
  const allowedEnv = allowedKeyEnv(configured);
  return [
    ...configured.map((m) => describe(m, "config", env, storedKeys, tests, allowedEnv)),
    ...added.map((m) => describe(m, "added", env, storedKeys, tests, allowedEnv)),
  ];
}

/** What a page or route may show of a model: no key, whatever the entry holds. */
export function publicModelView(m: ModelInfo): PublicModel {
  return {
    id: m.id,
    provider: m.provider,
    model: m.model,
    baseURL: m.baseURL ?? null,
    source: m.source,
    apiKeyEnv: m.apiKeyEnv ?? null,
    keySet: m.keySet,
    keySource: m.keySource,
    available: m.available,
    reason: m.reason ?? null,
    status: m.status,
    lastTest: m.lastTest,
    contextWindow: m.contextWindow,
    price: m.price,
  };
}

/** Settings for an ad-hoc OpenAI-compatible model (`--base-url URL --api-key KEY`). */
export interface AdHocModel {
  baseURL: string;
  apiKey?: string;
  /** The name sent as `model` (default "default"). */
  model?: string;
  contextWindow?: number;
}

/** A model ready to call. */
export interface ResolvedModel {
  info: ModelInfo;
  languageModel: LanguageModel;
  /** The key it sends (if any): redacted from whatever the provider says back (lib/agent/redact.ts). */
  secrets?: string[];
}

/** Builds an ad-hoc model description (id `adhoc:<model>@<host>`). */
export function adHocModelInfo(adhoc: AdHocModel): ModelInfo {
  let host: string;
  try {
    host = new URL(adhoc.baseURL).host;
  } catch {
    throw new BadInputError(`not a URL: ${JSON.stringify(adhoc.baseURL)}`, "--base-url");
  }
  const model = adhoc.model ?? "default";
  return {
    id: `adhoc:${model}@${host}`,
    provider: "openai-compatible",
    model,
    baseURL: adhoc.baseURL.replace(/\/+$/, ""),
    apiKeyOptional: true,
    contextWindow: adhoc.contextWindow ?? 32_768,
    maxOutputTokens: 1024,
    price: { inputPerMtok: 0, outputPerMtok: 0 },
    source: "adhoc",
    keySet: adhoc.apiKey !== undefined,
    keySource: null,
    available: true,
    lastTest: null,
    status: "untested",
  };
}

/**
 * Resolves a model by id, or an ad-hoc OpenAI-compatible one. With `adhoc`, `id` (if given) names
 * the model to request from that endpoint.
 * @throws NotFoundError for an unknown id; BadInputError naming the key variable when it is missing.
 */
export function resolveModel(id: string | undefined, options: ModelSources & { adhoc?: AdHocModel } = {}): ResolvedModel {
  const env = options.env ?? process.env;
  if (options.adhoc) {
    const info = adHocModelInfo({ ...options.adhoc, model: options.adhoc.model ?? id });
    return { info, languageModel: createLanguageModel(info, options.adhoc.apiKey), secrets: options.adhoc.apiKey ? [options.adhoc.apiKey] : [] };
  }
  if (!id) throw new BadInputError("a model id is required (see `icstudio models`)", "--model");
  const dir = options.dir ?? storeDir();
  const info = listModels({ env, file: options.file, dir }).find((m) => m.id === id);
  if (!info) throw new NotFoundError(`model ${JSON.stringify(id)} (not in ${options.file ?? modelsConfigPath()} nor added in the models page)`);
  if (!info.available) throw new BadInputError(`model ${id} is unavailable: ${info.reason}`, "--model");
  const own = info.source === "config" ? null : ownAddressReason(info.baseURL);
  if (own) throw new BadInputError(own, "baseURL");
  const key = info.keySource === "stored" ? getStoredKey(id, dir) : info.keySource === "env" && info.apiKeyEnv ? env[info.apiKeyEnv] : undefined;
  return { info, languageModel: createLanguageModel(info, key), secrets: key ? [key] : [] };
}

/**
 * Why a base URL is refused as this Studio's own address (loopback or the bind host, on the
 * Studio's port), or null. A model added in the page must not make the server call its own API;
 * one in models.config.json may (the operator configured it so).
 */
export function ownAddressReason(baseURL: string | undefined): string | null {
  if (!baseURL) return null;
  let u: URL;
  try {
    u = new URL(baseURL);
  } catch {
    return null;
  }
  const { host, port } = config();
  if (!port) return null;
  const p = Number(u.port || (u.protocol === "https:" ? 443 : 80));
  const name = u.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const local = isLoopbackName(name) || name === host.toLowerCase() || name === "0.0.0.0" || name === "::";
  return local && p === port
    ? `${baseURL} is this Studio's own address (port ${port}): a model added here may not call the Studio itself; put it in models.config.json if that is meant`
    : null;
}

function isLoopbackName(h: string): boolean {
  return h === "localhost" || h.endsWith(".localhost") || /^127\./.test(h) || h === "::1" || h.startsWith("::ffff:127.");
}

/** Makes the AI SDK model object for a configured model. */
export function createLanguageModel(info: ModelConfig, apiKey: string | undefined): LanguageModel {
  switch (info.provider) {
    case "openai":
      return createOpenAI({ apiKey, baseURL: info.baseURL }).chat(info.model);
    case "anthropic":
      return createAnthropic({ apiKey, baseURL: info.baseURL })(info.model);
    case "google":
      return createGoogleGenerativeAI({ apiKey, baseURL: info.baseURL })(info.model);
    case "openai-compatible":
      return createOpenAICompatible({ name: "openai-compatible", baseURL: info.baseURL!, apiKey: apiKey || "none", includeUsage: true }).chatModel(info.model);
  }
}

/** Estimated cost in US dollars of a call with these token counts. */
export function estimateCost(info: Pick<ModelConfig, "price">, tokensIn: number, tokensOut: number): number {
  return (tokensIn * info.price.inputPerMtok + tokensOut * info.price.outputPerMtok) / 1_000_000;
}

/**
 * Adds a model from the models page (or replaces one added before with the same id); its key, if
 * given, goes to the key store. The id defaults to the model name, or name@host when a configured
 * model already has that id.
 * @throws ConflictError when the id is a configured model's.
 */
export function addModel(input: AddModelInput, sources: ModelSources = {}): ModelInfo {
  const env = sources.env ?? process.env;
  const dir = sources.dir ?? storeDir();
  const configuredModels = loadModelsConfig(sources.file ?? modelsConfigPath());
  const configured = new Set(configuredModels.map((m) => m.id));
  if (input.apiKeyEnv && !allowedKeyEnv(configuredModels).has(input.apiKeyEnv)) {
    const allowed = [...allowedKeyEnv(configuredModels)].sort();
    throw new BadInputError(
      `${input.apiKeyEnv} is not a variable a model may take its key from: use ${allowed.length ? allowed.join(", ") : "none is allowed yet"}, add it to IC_MODEL_KEY_ENV, or give the key itself`,
      "apiKeyEnv",
    );
  }
  const suffix = input.baseURL ? new URL(input.baseURL).host : input.provider;
  const id = input.id ?? (configured.has(input.model) ? `${input.model}@${suffix}` : input.model);
  const own = ownAddressReason(input.baseURL);
  if (own) throw new BadInputError(own, "baseURL");
  if (configured.has(id)) throw new ConflictError(`model id ${JSON.stringify(id)} is taken by ${modelsConfigPath()}; give another id`, { where: "id" });
  const entry = modelConfigSchema.parse({
    id,
    provider: input.provider,
    model: input.model,
    ...(input.baseURL ? { baseURL: input.baseURL.replace(/\/+$/, "") } : {}),
    ...(input.apiKeyEnv ? { apiKeyEnv: input.apiKeyEnv } : {}),
    contextWindow: input.contextWindow ?? (input.provider === "openai-compatible" ? 32_768 : 128_000),
    price: input.price ?? { inputPerMtok: 0, outputPerMtok: 0 },
  });
  if (input.apiKey) setStoredKey(id, input.apiKey, dir);
  else deleteStoredKey(id, dir);
  saveAddedModel(entry, dir);
  return listModels({ ...sources, env, dir }).find((m) => m.id === id)!;
}

/**
 * Removes a model added in the page, with its key and test result.
 * @throws ConflictError for a configured model; NotFoundError for an unknown id.
 */
export function removeModel(id: string, sources: ModelSources = {}): void {
  const dir = sources.dir ?? storeDir();
  if (loadModelsConfig(sources.file ?? modelsConfigPath()).some((m) => m.id === id)) {
    throw new ConflictError(`model ${JSON.stringify(id)} is configured in ${modelsConfigPath()}; remove it there`);
  }
  if (!removeAddedModel(id, dir)) throw new NotFoundError(`model ${JSON.stringify(id)}`);
  deleteStoredKey(id, dir);
}
