import { z } from "zod";

/** POST /api/studies/<id>/reveal body: what the owner looks at behind the seal (logged). */
export const revealBodySchema = z.object({ what: z.string().trim().min(1).max(200).default("results") });
