import { z } from "zod";

/** GET /api/live/<id>/events?from=N: the events from number N on (server-sent events). */
export const eventsQuerySchema = z.object({ from: z.coerce.number().int().min(0).default(0) });
