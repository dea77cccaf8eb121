import type { Environment, StepResult, SubmitResult } from "@/lib/env/types";

/** A fake environment that counts how often it was closed. */
export type FakeEnvironment = Environment & { closed: number };

/** What a fast test may set of the fake: what it logs into, what reset and each action answer, what the scorer compared. */
export interface FakeEnvironmentOptions {
  /** Each call in order: "reset", "step <action>", "evaluate", "submit". */
  log?: string[];
  /** What reset answers (the task's query). */
  query?: string;
  /** What an action prints (also streamed to onOutput as "out:<action>"). */
  observe?: (action: string) => string;
  goldObservation?: string;
  agentObservation?: string;
}

/**
 * An SQL environment with no sandbox, for the fast tests of what drives one (the episode session,
 * the replay check): an action echoes, `win` makes the score 1.0 until the next reset, `bad` fails
 * to execute, and `boom` throws as a lost sandbox does. The integration tiers drive the same code
 * over real sandboxes.
 */
export function fakeEnvironment({
  log = [],
  query = "q",
  observe = (action) => `ran ${action}`,
  goldObservation = "gold",
  agentObservation = "agent",
}: FakeEnvironmentOptions = {}): FakeEnvironment {
  let won = false;
  const score = (): SubmitResult => ({ reward: won ? 1 : 0, breakdown: { kind: "sql", overlap: won ? 1 : 0, order: null }, goldObservation, agentObservation });
  return {
    env: "sql",
    task: null,
    closed: 0,
    async reset() {
      log.push("reset");
      won = false;
      return { observation: query };
    },
    async step(action, options): Promise<StepResult> {
      log.push(`step ${action}`);
      if (action === "boom") throw new Error("sandbox gone");
      options?.onOutput?.(`out:${action}`);
      if (action === "win") won = true;
      return { observation: observe(action), ok: action !== "bad", done: false };
    },
    async submit() {
      log.push("submit");
      return score();
    },
    async evaluate() {
      log.push("evaluate");
      return score();
    },
    async close() {
      this.closed++;
    },
  };
}
