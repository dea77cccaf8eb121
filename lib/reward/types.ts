/** How a reward was reached, per environment. Every number is already rounded like Python's round(x, 2). */
export interface BashBreakdown {
  kind: "bash";
  /** 0.33 × (1 − erf(paths changed by only one of agent and gold)). */
  fileChanges: number;
  /** 0.33 × share of paths changed by both whose md5 agree (0.33 when none). */
  fileContents: number;
  /** 0.33 × tf-idf cosine similarity of the last observation and gold's output. */
  output: number;
  /** Paths changed by gold only, by the agent only, and by both with different contents. */
  missing: string[];
  extra: string[];
  wrong: string[];
}

export interface SqlBreakdown {
  kind: "sql";
  /** Intersection over union of the two multisets of rows. */
  overlap: number;
  /** Kendall tau-b of the shared rows' order, or null when undefined. */
  order: number | null;
  /** Set when the agent's query failed (reward 0). */
  error?: string;
}

export type TestOutcome = "pass" | "fail" | "error";

export interface PythonBreakdown {
  kind: "python";
  functionName: string;
  tests: { test: string; gold: TestOutcome; agent: TestOutcome; agree: boolean; detail?: string }[];
  error?: string;
}

export interface CtfBreakdown {
  kind: "ctf";
  submitted: string;
  match: boolean;
}

export type RewardBreakdown = BashBreakdown | SqlBreakdown | PythonBreakdown | CtfBreakdown;

export interface RewardResult<B extends RewardBreakdown = RewardBreakdown> {
  /** In [0, 1], rounded like Python's round(x, 2). */
  reward: number;
  breakdown: B;
  /**
   * The number InterCode itself would have recorded, before our final rounding and clamping: its
   * bash and python rewards are unrounded floats (0.6900000000000001, 0.3333333333333333) and its
   * SQL reward is unrounded when no order correction applies, and can go below 0 (tau < 0).
   * Use it to compare with InterCode's logs; `reward` is what the Studio scores with.
   */
  raw?: number;
}
