import type { z } from "zod";
import { newStudySchema } from "@/lib/studies/studies";

/** POST /api/studies body: a study's name, dataset, task selection and conditions. */
export const createStudyBodySchema = newStudySchema;
export type CreateStudyBody = z.infer<typeof createStudyBodySchema>;
