import { BadInputError } from "@/lib/errors";
import { planSolvePolicy } from "./plan-solve";
import { reactPolicy } from "./react";
import { singleTurnPolicy } from "./single-turn";
import { tryAgainPolicy } from "./try-again";
import { POLICY_NAMES, type Policy, type PolicyName } from "./types";

const POLICIES: Record<PolicyName, Policy> = {
  "single-turn": singleTurnPolicy,
  "try-again": tryAgainPolicy,
  react: reactPolicy,
  "plan-solve": planSolvePolicy,
};

/** Every policy, in the paper's order. */
export function listPolicies(): Policy[] {
  return POLICY_NAMES.map((n) => POLICIES[n]);
}

/** @throws BadInputError naming the known policies. */
export function getPolicy(name: string, where = "policy"): Policy {
  const p = POLICIES[name as PolicyName];
  if (!p) throw new BadInputError(`unknown policy ${JSON.stringify(name)} (known: ${POLICY_NAMES.join(", ")})`, where);
  return p;
}
