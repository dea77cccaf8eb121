"use client";

import { useState } from "react";
import { Button } from "@/components/ui/button";

/** Where this browser keeps the annotator's name or code between episodes. */
export const ANNOTATOR_KEY = "icstudio.annotator";

/**
 * Asks a human-baseline player for their name or code before they play (it is stored with each
 * episode), keeps it in this browser and hands it on. A study's runner gives its own heading.
 */
export function AnnotatorForm({
  onSave,
  title = "Human baseline",
  intro = "Your name or code is stored with every episode you play (kept in this browser).",
}: {
  onSave(name: string): void;
  title?: string;
  intro?: string;
}) {
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="mx-auto mt-16 max-w-sm space-y-3 rounded border border-zinc-800 p-4"
      onSubmit={(e) => {
        e.preventDefault();
        if (name.trim()) {
          window.localStorage.setItem(ANNOTATOR_KEY, name.trim());
          onSave(name.trim());
        } else setError("Type your name or annotator code first: it is stored with every episode.");
      }}
    >
      <h2 className="font-semibold">{title}</h2>
      <p className="text-sm text-zinc-400">{intro}</p>
      <input
        autoFocus
        aria-label="annotator name"
        data-testid="annotator"
        value={name}
        onChange={(e) => (setName(e.target.value), setError(null))}
        className="w-full rounded border border-zinc-700 bg-zinc-900 px-2 py-1"
      />
      {error && (
        <p className="text-xs text-red-300" role="alert" data-testid="annotator-error">
          {error}
        </p>
      )}
      <Button type="submit" variant="primary">
        Start
      </Button>
    </form>
  );
}
