import { z } from "zod";
import type { ModelConfig } from "./model-config";

// What the models page shows of a model, as plain JSON. Client-safe: no server code here, so the
// page's client component takes these types from this module; lib/agent/models.ts fills them.

export const connectionTestSchema = z.object({
  ok: z.boolean(),
  /** Wall time of the request, ms. */
  latencyMs: z.number().nonnegative(),
  /** The provider's error when not ok (or what the reply said when ok). */
  message: z.string(),
  /** When the test ran, ISO 8601. */
  at: z.string(),
});
export type ConnectionTest = z.infer<typeof connectionTestSchema>;

/**
 * What the models page shows for a model. "untested" until a connection test ran: a preset is
 * never called ready just because nothing is missing from its entry.
 */
export type ModelStatus = "no-key" | "untested" | "ok" | "failed";

/** Where a model entry comes from: the models file, the models page, or the command line (ad hoc). */
export type ModelSource = "config" | "added" | "adhoc";

/** What a page or route may show of a model (publicModelView): no key, only whether one is set. */
export interface PublicModel extends Pick<ModelConfig, "id" | "provider" | "model" | "contextWindow" | "price"> {
  baseURL: string | null;
  source: ModelSource;
  apiKeyEnv: string | null;
  keySet: boolean;
  /** "stored": the key store; "env": the variable apiKeyEnv; null: no key. */
  keySource: "stored" | "env" | null;
  available: boolean;
  reason: string | null;
  status: ModelStatus;
  lastTest: ConnectionTest | null;
}
