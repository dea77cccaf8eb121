"use client";

import { useEffect, useRef, type ReactNode } from "react";
import { Button } from "./button";

/**
 * An in-page modal that asks "are you sure?" before a step that cannot be undone (a native
 * <dialog>: keyboard and screen-reader reachable; Escape or Cancel closes it without acting).
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
  testId,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm(): void;
  onCancel(): void;
  testId: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    else if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={`${testId}-title`}
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
          onConfirm();
        }}
      >
        <h2 id={`${testId}-title`} className="mb-2 font-semibold">
          {title}
        </h2>
        <div className="text-zinc-300">{children}</div>
        <div className="mt-3 flex justify-end gap-2">
          <Button onClick={onCancel} data-testid={`${testId}-cancel`}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" autoFocus data-testid={`${testId}-confirm`}>
            {confirmLabel}
          </Button>
        </div>
      </form>
    </dialog>
  );
}
