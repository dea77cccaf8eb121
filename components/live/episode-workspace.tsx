"use client";

import type { ReactNode, RefObject } from "react";
import { CodeEditor, type CodeEditorProps } from "@/components/editor/code-editor";
import { Console, type ConsoleProps } from "@/components/terminal/console";
import type { TerminalApi } from "@/components/terminal/use-terminal";

/** The editor's language and the console's prompt of each environment. */
const LANGUAGE: Record<string, string> = { bash: "shell", sql: "sql", python: "python", ctf: "shell" };
const PROMPT: Record<string, string> = { bash: "$ ", sql: "sql> ", python: ">>> ", ctf: "$ " };

/**
 * Where an episode is worked, whoever acts: the task (and what the page adds beside it) on the
 * left, the editor over the console on the right. A person's episode (components/play/play-view)
 * and a model's (components/agent/agent-view) put their own controls above it; Escape in the
 * editor goes to the console.
 */
export function EpisodeWorkspace({
  env,
  side,
  editor,
  editorKey,
  console: consoleProps,
  aboveConsole,
  termRef,
}: {
  env: string;
  side: ReactNode;
  editor: Omit<CodeEditorProps, "language" | "onEscape">;
  /** A new key gives the editor a fresh defaultValue (a model's action shown in it). */
  editorKey?: number;
  console: Omit<ConsoleProps, "prompt">;
  /** Shown over the console (a person's submitted result). */
  aboveConsole?: ReactNode;
  termRef: RefObject<TerminalApi | null>;
}) {
  return (
    <div className="grid min-h-0 flex-1 grid-cols-[minmax(260px,1fr)_2.2fr]">
      {side}
      <div className="grid min-h-0 grid-rows-[minmax(120px,2fr)_3fr] border-l border-zinc-800">
        <CodeEditor key={editorKey} language={LANGUAGE[env] ?? "plaintext"} onEscape={() => termRef.current?.focus()} {...editor} />
        <div className="flex min-h-0 flex-col border-t border-zinc-800">
          {aboveConsole}
          <Console prompt={PROMPT[env] ?? "> "} {...consoleProps} />
        </div>
      </div>
    </div>
  );
}
