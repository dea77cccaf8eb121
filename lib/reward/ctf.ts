import type { CtfBreakdown, RewardResult } from "./types";

export interface CtfRewardInput {
  /** The flag the agent submitted. */
  submitted: string | null | undefined;
  /** The task's flag. */
  flag: string;
}

/**
 * InterCode's CTF reward: 1 when the submitted flag equals the task's flag ignoring case, else 0.
 * Surrounding whitespace is ignored on both sides; an empty submission never matches. Never throws.
 */
export function ctfReward(input: CtfRewardInput): RewardResult<CtfBreakdown> {
  const submitted = typeof input.submitted === "string" ? input.submitted : "";
  const want = typeof input.flag === "string" ? input.flag.trim().toLowerCase() : "";
  const got = submitted.trim().toLowerCase();
  const match = got.length > 0 && got === want;
  const reward = match ? 1 : 0;
  return { reward, raw: reward, breakdown: { kind: "ctf", submitted, match } };
}
