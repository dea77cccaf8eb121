"use client";

import { useEffect } from "react";
import "@xterm/xterm/css/xterm.css";
import { useTerminal, type TerminalApi } from "./use-terminal";

export interface ConsoleProps {
  prompt: string;
  onLine(text: string): void;
  onInterrupt(): void;
  /** Every key input and everything drawn, for the episode's recording. */
  onRecord?(kind: "i" | "o", data: string): void;
  /** Receives the console's API once it exists (null when it goes away). */
  onReady(api: TerminalApi | null): void;
}

/** The playground console: xterm, one line + Enter per action, Ctrl+C stops the running action. */
export function Console({ prompt, onLine, onInterrupt, onRecord, onReady }: ConsoleProps) {
  const { containerRef, api } = useTerminal(prompt, { onLine, onInterrupt, onRecord });
  useEffect(() => {
    onReady(api);
  }, [api, onReady]);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a click on the padding focuses the terminal, which takes the keys itself.
    // biome-ignore lint/a11y/useKeyWithClickEvents: as above; the keyboard reaches the terminal by Tab or Escape from the editor.
    <div data-testid="terminal" data-ready={api ? "1" : "0"} className="min-h-0 flex-1 bg-[#09090b] p-1" ref={containerRef} onClick={() => api?.focus()} />
  );
}
