import { z } from "zod";

/** POST /api/annotations: a tag or a note on an episode or one of its turns. */
export const newAnnotationSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("tag"),
    episodeId: z.string().min(1).max(100),
    turnIndex: z.number().int().min(0).nullable().optional(),
    tag: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z0-9][a-z0-9_.:-]{0,63}$/, "a tag is 1-64 characters of a-z, 0-9, _ . : -"),
    author: z.string().trim().min(1).max(100),
    status: z.enum(["accepted", "rejected", "suggested"]).default("accepted"),
  }),
  z.object({
    kind: z.literal("note"),
    episodeId: z.string().min(1).max(100),
    turnIndex: z.number().int().min(0).nullable().optional(),
    text: z.string().trim().min(1).max(10_000),
    author: z.string().trim().min(1).max(100),
  }),
]);
export type NewAnnotation = z.infer<typeof newAnnotationSchema>;
