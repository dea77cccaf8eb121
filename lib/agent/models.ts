import "server-only";
import fs from "node:fs";
import { z } from "zod";
import type { LanguageModel } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { config } from "@/lib/config";
import { BadInputError, NotFoundError } from "@/lib/errors";

/**
 * Models and their endpoints. The one place they are configured is `models.config.json` at the
 * repository root (or the file named by IC_MODELS_CONFIG); keys come from the environment
 * variable each model names, never from the file.
 */

/** Environment variables as read here (process.env or a test's own). */
export type EnvVars = Record<string, string | undefined>;

export const PROVIDERS = ["openai", "anthropic", "google", "openai-compatible"] as const;

export const modelConfigSchema = z
  .object({
    /** The name used on the command line and in the store. */
    id: z.string().min(1),
    provider: z.enum(PROVIDERS),
    /** The provider's own model name. */
    model: z.string().min(1),
    /** Endpoint; required for openai-compatible, optional override for the others. */
    baseURL: z.string().url().optional(),
    /** Environment variable that holds the API key. */
    apiKeyEnv: z.string().min(1).optional(),
    /** The key may be missing (local servers that accept any key). */
    apiKeyOptional: z.boolean().default(false),
    /** Tokens the model accepts (prompt and reply). */
    contextWindow: z.number().int().positive(),
    /** Cap on a reply's tokens. */
    maxOutputTokens: z.number().int().positive().default(1024),
    /** US dollars per million tokens, to estimate cost. */
    price: z.object({ inputPerMtok: z.number().nonnegative(), outputPerMtok: z.number().nonnegative() }),
  })
  .refine((m) => m.provider !== "openai-compatible" || m.baseURL, { message: "an openai-compatible model needs baseURL", path: ["baseURL"] });

export type ModelConfig = z.infer<typeof modelConfigSchema>;

export const modelsFileSchema = z.object({ $comment: z.string().optional(), models: z.array(modelConfigSchema) });

/** A configured model and whether it can be used here. */
export interface ModelInfo extends ModelConfig {
  available: boolean;
  /** Why it cannot be used (missing key), when `available` is false. */
  reason?: string;
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

function availability(m: ModelConfig, env: EnvVars): { available: boolean; reason?: string } {
  if (m.apiKeyEnv && !m.apiKeyOptional && !env[m.apiKeyEnv]) {
    return { available: false, reason: `set ${m.apiKeyEnv} to use this model` };
  }
  return { available: true };
}

/** Every configured model, each marked available or not (with the reason). Never throws for a missing key. */
export function listModels(options: { env?: EnvVars; file?: string } = {}): ModelInfo[] {
  const env = options.env ?? process.env;
  return loadModelsConfig(options.file ?? modelsConfigPath()).map((m) => ({ ...m, ...availability(m, env) }));
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
    available: true,
  };
}

/**
 * Resolves a model by id, or an ad-hoc OpenAI-compatible one. With `adhoc`, `id` (if given) names
 * the model to request from that endpoint.
 * @throws NotFoundError for an unknown id; BadInputError naming the key variable when it is missing.
 */
export function resolveModel(
  id: string | undefined,
  options: { adhoc?: AdHocModel; env?: EnvVars; file?: string } = {},
): ResolvedModel {
  const env = options.env ?? process.env;
  if (options.adhoc) {
    const info = adHocModelInfo({ ...options.adhoc, model: options.adhoc.model ?? id });
    return { info, languageModel: createLanguageModel(info, options.adhoc.apiKey) };
  }
  if (!id) throw new BadInputError("a model id is required (see `icstudio models`)", "--model");
  const info = listModels({ env, file: options.file }).find((m) => m.id === id);
  if (!info) throw new NotFoundError(`model ${JSON.stringify(id)} (not in ${options.file ?? modelsConfigPath()})`);
  if (!info.available) throw new BadInputError(`model ${id} is unavailable: ${info.reason}`, "--model");
  const key = info.apiKeyEnv ? env[info.apiKeyEnv] : undefined;
  return { info, languageModel: createLanguageModel(info, key) };
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
