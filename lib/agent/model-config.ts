import { z } from "zod";

/**
 * What a model entry is (in models.config.json or added in the models page). No server code
 * here, so the models page's form can share the provider list and the checks.
 */

export const PROVIDERS = ["openai-compatible", "openai", "anthropic", "google"] as const;
export type Provider = (typeof PROVIDERS)[number];

export const PROVIDER_LABELS: Record<Provider, string> = {
  "openai-compatible": "OpenAI-compatible endpoint",
  openai: "OpenAI",
  anthropic: "Anthropic",
  google: "Google",
};

/** An http(s) URL (what a provider client can call). */
export const endpointUrlSchema = z
  .string()
  .trim()
  .url({ message: "not a valid URL (e.g. http://127.0.0.1:8000/v1)" })
  .refine((u) => !URL.canParse(u) || /^https?:$/.test(new URL(u).protocol), { message: "must be an http:// or https:// URL" });

/** The name of an environment variable. */
export const envVarNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: "not an environment variable name" });

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
    apiKeyEnv: envVarNameSchema.optional(),
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

const optionalText = <T extends z.ZodType>(schema: T) => z.union([z.literal("").transform(() => undefined), schema]).optional();

/** A model added in the models page (the body of POST /api/models). The key is write-only. */
export const addModelInputSchema = z
  .object({
    provider: z.enum(PROVIDERS, { message: `unknown provider; use one of ${PROVIDERS.join(", ")}` }),
    /** The provider's model name. */
    model: z.string({ message: "the model name is required" }).trim().min(1, { message: "the model name is empty" }).max(200),
    baseURL: optionalText(endpointUrlSchema),
    /** The name the Studio uses (default: the model name). */
    id: optionalText(
      z
        .string()
        .trim()
        .max(120)
        .regex(/^[A-Za-z0-9][\w.:@/+-]*$/, { message: "letters, digits and . : @ / + - _ only, starting with a letter or digit" }),
    ),
    /** The key itself: kept on the server in the key store, never shown again. */
    apiKey: optionalText(z.string().trim().max(4096)),
    /** Or the environment variable that holds it. */
    apiKeyEnv: optionalText(envVarNameSchema),
    contextWindow: z.number().int().positive().max(100_000_000).optional(),
    price: z.object({ inputPerMtok: z.number().nonnegative(), outputPerMtok: z.number().nonnegative() }).optional(),
  })
  .superRefine((m, ctx) => {
    if (m.provider === "openai-compatible" && !m.baseURL)
      ctx.addIssue({ code: "custom", path: ["baseURL"], message: "an OpenAI-compatible endpoint needs its base URL" });
    if (m.apiKey && m.apiKeyEnv)
      ctx.addIssue({ code: "custom", path: ["apiKeyEnv"], message: "give the key or the name of its environment variable, not both" });
  });
export type AddModelInput = z.infer<typeof addModelInputSchema>;
