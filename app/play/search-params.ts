import { z } from "zod";
import { envNameSchema } from "@/lib/datasets/types";
import { DEFAULT_TURN_LIMIT } from "@/lib/episodes/rules";

const one = z.preprocess((v) => (Array.isArray(v) ? v[0] : v), z.string().optional());
const optionalText = one.transform((v) => (v?.trim() ? v.trim() : undefined));

/** The picker's query string (shared with the random-task route). */
export const pickerParamsSchema = z.object({
  env: one.pipe(envNameSchema.optional()).catch(undefined),
  dataset: optionalText,
  q: optionalText,
  hardness: optionalText,
  db: optionalText,
  fs: optionalText,
  page: one.transform((v) => Math.max(1, Number(v) || 1)),
});

/** How a task page is played: ?mode=baseline&feedback=reward&limit=10&study=<id>&i=<position>. */
export const playParamsSchema = z.object({
  mode: one
    .pipe(z.enum(["play", "baseline"]).optional())
    .catch(undefined)
    .transform((v) => v ?? "play"),
  feedback: one.pipe(z.enum(["none", "reward"]).optional()).catch(undefined),
  limit: one.transform((v) => {
    const n = Number(v);
    return Number.isInteger(n) && n >= 1 && n <= 100 ? n : DEFAULT_TURN_LIMIT;
  }),
  study: optionalText,
  i: one.transform((v) => (Number.isInteger(Number(v)) && Number(v) >= 0 ? Number(v) : undefined)),
});

export type PickerParams = z.infer<typeof pickerParamsSchema>;
export type PlayParams = z.infer<typeof playParamsSchema>;

/** The play options carried from the picker into task links. */
export function playQuery(p: { mode?: string; feedback?: string; limit?: number }): string {
  const q = new URLSearchParams();
  if (p.mode && p.mode !== "play") q.set("mode", p.mode);
  if (p.feedback) q.set("feedback", p.feedback);
  if (p.limit && p.limit !== DEFAULT_TURN_LIMIT) q.set("limit", String(p.limit));
  const s = q.toString();
  return s ? `?${s}` : "";
}
