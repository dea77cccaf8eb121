import { z } from "zod";
import type { EnvName, Task } from "@/lib/datasets/types";
import type { ProfileName } from "@/lib/env/profiles";
import type { ParseOptions } from "../parse-action";

export const POLICY_NAMES = ["single-turn", "try-again", "react", "plan-solve"] as const;
export const policyNameSchema = z.enum(POLICY_NAMES);
export type PolicyName = z.infer<typeof policyNameSchema>;

export interface PolicyContext {
  task: Task;
  env: EnvName;
  /** Turn limit for the whole episode (plan steps and refine turns included). */
  maxTurns: number;
  /** InterCode's "handicap": give the SQL schema up front. */
  handicap: boolean;
  /** Plan & Solve only: turns after the plan where the model sees the reward and may fix things. */
  refineTurns: number;
  /** The engine's profile (lib/env/profiles.ts); default studio. */
  profile?: ProfileName;
}

/** What the model is told after a turn. */
export interface TurnFeedback {
  actor: "model" | "human";
  action: string | null;
  /** Already cut to the observation budget. */
  observation: string;
  ok: boolean;
  /** Set when the turn was scored (evaluate) and the policy shows rewards. */
  reward?: number;
  /** Python under Try Again: whether the hidden tests all passed with the function just defined. */
  testsPassed?: boolean;
  /** Set for an invalid turn: what was wrong with the reply. */
  invalidReason?: string;
}

/** What the loop does after a turn. */
export type NextStep = { kind: "continue"; message: string } | { kind: "stop" };

/**
 * A policy's state for one episode. The loop owns the environment, the model and the store; the
 * session only decides what the model is told and when the policy's own phases end.
 */
export interface PolicySession {
  readonly name: PolicyName;
  readonly system: string;
  /** The first user message (the task, and what the policy wants first). */
  readonly opening: string;
  /** Turn limit this policy runs under (Single Turn: 1). */
  readonly maxTurns: number;
  readonly parse: ParseOptions;
  /**
   * Plan & Solve: the first reply is a plan, not an action. Returns the message that asks for the
   * first step's action.
   */
  readonly planning?: {
    accept(reply: string): { message: string; steps: string[] };
    /** The plan reply stays out of the conversation sent afterwards (`plan-solve.plan-in-conversation` = left-out). */
    leavesOutReply?: boolean;
  };
  /** The episode's reward is its best turn's (`plan-solve.episode-reward` = best-turn), not its final state's. */
  readonly bestTurnReward?: boolean;
  /** Whether the turn about to run should be scored with evaluate() and the score shown. */
  scoresTurn(turnIndex: number): boolean;
  /** Stop as soon as a scored turn reaches reward 1.0 (Try Again's rule). */
  readonly stopOnSolved: boolean;
  /**
   * The submit forced at the turn limit (profile row `react.forced-submit`): `appended-not-counted`
   * stores it as a last `submit` turn that the episode's turn count (turnsTaken) leaves out;
   * absent or `not-recorded`, the episode is scored without a turn for it.
   */
  readonly forcedSubmit?: "appended-not-counted" | "not-recorded";
  /** Called after each turn (model or human) with what happened; says what comes next. */
  afterTurn(turnIndex: number, feedback: TurnFeedback): NextStep;
}

export interface Policy {
  name: PolicyName;
  /** One line for menus and --help. */
  summary: string;
  start(ctx: PolicyContext): PolicySession;
}
