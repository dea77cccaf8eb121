"use client";

import { useEffect, useRef, useState } from "react";
import type { Terminal } from "@xterm/xterm";
import { LineEditor } from "./line-editor";

export interface TerminalHandlers {
  /** A line was entered (one action). */
  onLine(text: string): void;
  /** Ctrl+C while an action runs. */
  onInterrupt(): void;
  /** Every key input ("i") and everything drawn ("o"), for the episode's recording. */
  onRecord?(kind: "i" | "o", data: string): void;
}

/** What the page can do with the console. */
export interface TerminalApi {
  /** Writes output (newlines become CRLF). */
  write(text: string): void;
  /** Writes a line from the application (status, errors) in a colour, then the prompt if idle. */
  notice(text: string, color?: "red" | "yellow" | "cyan" | "gray"): void;
  /** Marks an action as running (typing is held) or finished (a fresh prompt is shown). */
  setBusy(busy: boolean): void;
  /** Shows an action run from the editor as if typed, and adds it to the history. */
  echoAction(text: string): void;
  setPrompt(prompt: string): void;
  clear(): void;
  focus(): void;
  /** The console's size in cells. */
  size(): { cols: number; rows: number };
}

const COLORS = { red: "31", yellow: "33", cyan: "36", gray: "90" } as const;

/**
 * Creates an xterm console in the returned ref's element, fits it to its box (and refits on
 * resize), runs the line discipline, and disposes everything on unmount.
 */
export function useTerminal(prompt: string, handlers: TerminalHandlers) {
  const containerRef = useRef<HTMLDivElement | null>(null);
  const handlersRef = useRef(handlers);
  handlersRef.current = handlers;
  const [api, setApi] = useState<TerminalApi | null>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the terminal is made once per mount; a new prompt is written by the line editor, not by a new terminal.
  useEffect(() => {
    const el = containerRef.current;
    if (!el) return;
    let disposed = false;
    let term: Terminal | null = null;
    let observer: ResizeObserver | null = null;

    void (async () => {
      const [{ Terminal }, { FitAddon }] = await Promise.all([import("@xterm/xterm"), import("@xterm/addon-fit")]);
      if (disposed) return;
      const xt = new Terminal({
        convertEol: false,
        cursorBlink: true,
        fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
        fontSize: 13,
        scrollback: 5000,
        theme: { background: "#09090b", foreground: "#e4e4e7", cursor: "#34d399", selectionBackground: "#3f3f46" },
      });
      // Every write goes through here, so the recording holds exactly what the console drew.
      const t = {
        write: (d: string) => {
          xt.write(d);
          handlersRef.current.onRecord?.("o", d);
        },
      };
      term = xt;
      const fit = new FitAddon();
      xt.loadAddon(fit);
      xt.open(el);
      const refit = () => {
        try {
          fit.fit();
        } catch {
          // not laid out yet
        }
      };
      refit();
      observer = new ResizeObserver(refit);
      observer.observe(el);

      let atLineStart = true;
      const editor = new LineEditor(
        {
          write: (d) => t.write(d),
          line: (text) => {
            atLineStart = true;
            handlersRef.current.onLine(text);
          },
          interrupt: () => handlersRef.current.onInterrupt(),
        },
        prompt,
        () => xt.cols,
      );
      xt.onData((d) => {
        handlersRef.current.onRecord?.("i", d);
        editor.input(d);
      });
      // Ctrl/Cmd+C with a selection copies instead of interrupting.
      xt.attachCustomKeyEventHandler((ev) => !(ev.type === "keydown" && ev.key === "c" && (ev.ctrlKey || ev.metaKey) && xt.hasSelection()));

      const writeOut = (text: string) => {
        if (!text) return;
        t.write(text.replace(/\r?\n/g, "\r\n"));
        atLineStart = text.endsWith("\n");
      };
      const newPrompt = () => {
        if (!atLineStart) t.write("\r\n");
        atLineStart = true;
        editor.showPrompt();
      };
      setApi({
        write: writeOut,
        notice: (text, color = "gray") => {
          if (!atLineStart) t.write("\r\n");
          t.write(`\r\x1b[2K\x1b[${COLORS[color]}m${text.replace(/\r?\n/g, "\r\n")}\x1b[0m\r\n`);
          atLineStart = true;
          if (!editor.busy) editor.showPrompt();
        },
        setBusy: (busy) => {
          const was = editor.busy;
          editor.busy = busy;
          if (was && !busy) newPrompt();
        },
        echoAction: (text) => {
          editor.remember(text);
          t.write(`\r\x1b[2K\x1b[32m${editor.prompt}\x1b[0m${text.replace(/\r?\n/g, "\r\n")}\r\n`);
          atLineStart = true;
        },
        setPrompt: (p) => {
          editor.prompt = p;
        },
        clear: () => {
          xt.reset();
          atLineStart = true;
          if (!editor.busy) editor.showPrompt();
        },
        focus: () => xt.focus(),
        size: () => ({ cols: xt.cols, rows: xt.rows }),
      });
      editor.showPrompt();
      atLineStart = false;
    })();

    return () => {
      disposed = true;
      observer?.disconnect();
      term?.dispose();
      setApi(null);
    };
    // The prompt is fixed per page (environment); handlers go through a ref.
  }, []);

  return { containerRef, api };
}
