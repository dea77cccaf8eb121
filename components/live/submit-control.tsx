"use client";

import type { PublicTask } from "@/lib/tasks/public-task";
import { Button } from "@/components/ui/button";

export interface SubmitControlProps {
  task: Pick<PublicTask, "env" | "functionName">;
  /** The submit argument (a CTF flag, a Python function's name), held by the view (a confirm dialog shows it). */
  arg: string;
  onArgChange(arg: string): void;
  /** Whether the argument field shows (a model's episode shows it only once a person has taken over). */
  showArg?: boolean;
  disabled: boolean;
  onSubmit(): void;
  /** The browser tests find the button by it: "submit" on a person's episode, "agent-submit" on a model's. */
  testId: string;
}

/**
 * The one Submit of a live episode, whoever submits: a person playing, or a person who took over
 * a model's episode. A CTF or Python task takes an argument; a CTF flag is one try.
 */
export function SubmitControl({ task, arg, onArgChange, showArg = true, disabled, onSubmit, testId }: SubmitControlProps) {
  const flag = task.env === "ctf";
  const withArg = showArg && (flag || task.env === "python");
  return (
    <form
      className="flex items-center gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        if (!disabled) onSubmit();
      }}
    >
      {withArg && (
        <input
          aria-label={flag ? "flag to submit" : "function to submit"}
          aria-describedby={flag ? "flag-hint" : undefined}
          value={arg}
          onChange={(e) => onArgChange(e.target.value)}
          placeholder={flag ? "flag, e.g. studio{…}" : (task.functionName ?? "function")}
          className={`${flag ? "w-80" : "w-40"} rounded border border-zinc-700 bg-zinc-900 px-1.5 py-0.5 font-mono text-xs`}
        />
      )}
      {withArg && flag && (
        <span id="flag-hint" className="text-[11px] text-amber-300">
          one try: submit ends the episode
        </span>
      )}
      <Button type="submit" data-testid={testId} variant="primary" disabled={disabled}>
        Submit
      </Button>
    </form>
  );
}
