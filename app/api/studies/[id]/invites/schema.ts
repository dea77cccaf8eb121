import { z } from "zod";
import { MAX_INVITES_AT_ONCE } from "@/lib/studies/participants";

/** POST /api/studies/<id>/invites body: how many invites, and how long they last (e.g. "7d"; absent: no expiry). */
export const createInvitesBodySchema = z.object({
  count: z.number().int().min(1).max(MAX_INVITES_AT_ONCE),
  expires: z.string().trim().min(1).max(20).optional(),
});
export type CreateInvitesBody = z.infer<typeof createInvitesBodySchema>;
