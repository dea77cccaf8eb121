"use client";

import type { ReactNode, RefObject } from "react";
import { CodeEditor, type CodeEditorProps } from "@/components/editor/code-editor";
import { Console, type ConsoleProps } from "@/components/terminal/console";
import type { TerminalApi } from "@/components/terminal/use-terminal";

/** The editor's language and the console's prompt of each environment. */
const LANGUAGE: Record<string, string> = { bash: "shell", sql: "sql", python: "python", ctf: "shell" };
const PROMPT: Record<string, string> = { bash: "$ ", sql: "sql> ", python: ">>> ", ctf: "$ " };

export interface EpisodeWorkspaceProps {
  env: string;
  side: ReactNode;
  editor: Omit<CodeEditorProps, "language" | "onEscape">;
  /** A new key gives the editor a fresh defaultValue (a model's action shown in it). */
  editorKey?: number;
  console: Omit<ConsoleProps, "prompt">;
  /** Shown over the console (a person's submitted result). */
  aboveConsole?: ReactNode;
  termRef: RefObject<TerminalApi | null>;
}

/**
 * Where an episode is worked, whoever acts: the task (and what the actor adds beside it) on the
 * left, the editor over the console on the right. Escape in the editor goes to the console.
 */
export function EpisodeWorkspace({ env, side, editor, editorKey, console: consoleProps, aboveConsole, termRef }: EpisodeWorkspaceProps) {
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

/**
 * One live episode on the page (components/live/live-episode-view.tsx), whoever acts: a bar with the
 * task's environment and address followed by the actor's controls, an optional alert, the
 * workspace, and what the actor shows under it (an ended episode's status, its dialogs).
 */
export function EpisodeFrame({
  env,
  taskRef,
  controls,
  alert,
  workspace,
  after,
  gap = "gap-3",
  refClassName = "whitespace-nowrap font-mono text-xs text-zinc-300",
  ...data
}: {
  env: string;
  taskRef: string;
  controls: ReactNode;
  alert?: ReactNode;
  workspace: EpisodeWorkspaceProps;
  after?: ReactNode;
  /** The bar's spacing: a model's bar holds more controls. */
  gap?: "gap-2" | "gap-3";
  refClassName?: string;
  /** Data attributes of the episode's root (the tests read a model episode's ids there). */
} & { [data: `data-${string}`]: string | undefined }) {
  return (
    <div className="flex h-[calc(100vh-41px)] min-h-0 flex-col" {...data}>
      <div className={`flex flex-wrap items-center ${gap} border-b border-zinc-800 px-3 py-1.5 text-sm`}>
        <span className="rounded bg-zinc-800 px-1.5 py-0.5 font-mono text-xs uppercase">{env}</span>
        <span className={refClassName}>{taskRef}</span>
        {controls}
      </div>
      {alert}
      <EpisodeWorkspace {...workspace} />
      {after}
    </div>
  );
}
