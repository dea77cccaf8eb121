import { addModelInputSchema } from "@/lib/agent/model-config";

/** POST /api/models: a model to add (provider, model name, base URL, and a key or its variable's name). */
export const addModelBodySchema = addModelInputSchema;
export type AddModelBody = import("zod").infer<typeof addModelBodySchema>;
