"use client";

import { useEffect, useRef, useState } from "react";
import { Button } from "./button";

/**
 * An in-page modal that asks for a short reason (Skip, Abandon) instead of window.prompt: it is
 * styled like the page, reachable by keyboard and screen readers (a native <dialog>), and testable.
 * `onConfirm` gets the trimmed text; Cancel or Escape closes it without acting.
 */
export function ReasonDialog({
  open,
  title,
  label,
  confirmLabel,
  required = false,
  onConfirm,
  onCancel,
  testId,
}: {
  open: boolean;
  title: string;
  label: string;
  confirmLabel: string;
  /** When set, an empty reason shows a message instead of confirming. */
  required?: boolean;
  onConfirm(reason: string): void;
  onCancel(): void;
  testId?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      setText("");
      setError(null);
      d.showModal();
    } else if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={testId ? `${testId}-title` : undefined}
      data-testid={testId}
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
      className="m-auto w-[28rem] rounded-lg border border-zinc-700 bg-zinc-900 p-4 text-sm text-zinc-100 backdrop:bg-black/60"
    >
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          const reason = text.trim();
          if (required && !reason) return setError("Please give a reason: it is stored with the episode.");
          onConfirm(reason);
        }}
      >
        <h2 id={testId ? `${testId}-title` : undefined} className="mb-2 font-semibold">
          {title}
        </h2>
        <label className="flex flex-col gap-1 text-xs text-zinc-300">
          {label}
          <input
            autoFocus
            value={text}
            maxLength={400}
            onChange={(e) => (setText(e.target.value), setError(null))}
            className="rounded border border-zinc-600 bg-zinc-950 px-2 py-1 text-sm text-zinc-100"
            data-testid={testId ? `${testId}-reason` : undefined}
          />
        </label>
        {error && (
          <p className="mt-1 text-xs text-red-300" role="alert">
            {error}
          </p>
        )}
        <div className="mt-3 flex justify-end gap-2">
          <Button onClick={onCancel}>Cancel</Button>
          <Button type="submit" variant="primary" data-testid={testId ? `${testId}-confirm` : undefined}>
            {confirmLabel}
          </Button>
        </div>
      </form>
    </dialog>
  );
}
