/** What a participant's study page shows (shared by the server, lib/studies/participant-flow.ts, and the page). */

/** Where a participant stands in their study: consent, their next task, or their completion code. */
export interface ParticipantProgress {
  study: { id: string; name: string } & { instructions: string; timeLimitMs: number | null; feedback: string };
  label: string;
  consented: boolean;
  total: number;
  done: number;
  /** 0-based position of their next task in their order; total when finished. */
  position: number;
  /** Their next task's play page (resuming an open episode of it), or null when finished. */
  href: string | null;
  /** Given once every task is settled (submitted or skipped). */
  completionCode: string | null;
}
