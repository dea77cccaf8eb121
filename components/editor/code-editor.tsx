"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type * as Monaco from "monaco-editor/editor/editor.api";
import { loadLocalMonaco } from "./load-monaco";

type StandaloneEditor = Monaco.editor.IStandaloneCodeEditor;

/**
 * Holds the Monaco instance: loads the local Monaco once, binds Ctrl/Cmd+Enter, and gives the
 * text to run (the selection, or the whole text when nothing is selected).
 */
/** One editor change as the recording keeps it: offset, replaced length, new text. */
export type EditorChange = { o: number; l: number; t: string };

export function useEditor(onRun: (text: string) => void, onEscape?: () => void, onChange?: (changes: EditorChange[]) => void) {
  const editorRef = useRef<StandaloneEditor | null>(null);
  const onRunRef = useRef(onRun);
  onRunRef.current = onRun;
  const onEscapeRef = useRef(onEscape);
  onEscapeRef.current = onEscape;
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const [ready, setReady] = useState(false);

  useEffect(() => {
    let cancelled = false;
    loadLocalMonaco().then(() => !cancelled && setReady(true));
    return () => {
      cancelled = true;
    };
  }, []);

  const actionText = useCallback((): string => {
    const ed = editorRef.current;
    const model = ed?.getModel();
    if (!ed || !model) return "";
    const sel = ed.getSelection();
    const selected = sel && !sel.isEmpty() ? model.getValueInRange(sel) : "";
    return (selected || model.getValue()).replace(/\s+$/, "");
  }, []);

  const run = useCallback(() => {
    const text = actionText();
    if (text.trim()) onRunRef.current(text);
  }, [actionText]);

  const onMount = useCallback(
    (editor: StandaloneEditor, monaco: typeof Monaco) => {
      editorRef.current = editor;
      editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.Enter, run);
      editor.onDidChangeModelContent((e) => onChangeRef.current?.(e.changes.map((c) => ({ o: c.rangeOffset, l: c.rangeLength, t: c.text }))));
      // Escape leaves the editor (to the console) unless it closes one of Monaco's own widgets
      // first: keyboard users are never trapped. Ctrl+M (Monaco's own) makes Tab move focus.
      editor.addCommand(
        monaco.KeyCode.Escape,
        () => {
          if (onEscapeRef.current) onEscapeRef.current();
          else (document.activeElement as HTMLElement | null)?.blur();
        },
        "!suggestWidgetVisible && !findWidgetVisible && !parameterHintsVisible && !inSnippetMode && !renameInputVisible && !accessibilityHelpWidgetVisible",
      );
    },
    [run],
  );

  return { ready, onMount, run, actionText, editorRef };
}

export interface CodeEditorProps {
  language: string;
  onRun(text: string): void;
  /** Escape in the editor (no Monaco widget open): where focus goes, e.g. the console. */
  onEscape?(): void;
  /** Every change of the text, for the episode's recording. */
  onChange?(changes: EditorChange[]): void;
  disabled?: boolean;
  defaultValue?: string;
}

/** The playground's editor: Monaco in the environment's language; Ctrl/Cmd+Enter or Run sends one action. */
export function CodeEditor({ language, onRun, onEscape, onChange, disabled, defaultValue }: CodeEditorProps) {
  const { ready, onMount, run } = useEditor(onRun, onEscape, onChange);
  const [EditorComponent, setEditorComponent] = useState<typeof import("@monaco-editor/react").default | null>(null);

  useEffect(() => {
    if (!ready) return;
    void import("@monaco-editor/react").then((m) => setEditorComponent(() => m.default));
  }, [ready]);

  return (
    <div className="flex h-full min-h-0 flex-col">
      <div className="flex items-center justify-between border-b border-zinc-800 px-2 py-1 text-xs text-zinc-400">
        <span data-testid="editor-keys">
          Editor · {language} · <kbd className="rounded bg-zinc-800 px-1">Ctrl+Enter</kbd> (Cmd+Enter on a Mac) runs the selection or all ·{" "}
          <kbd className="rounded bg-zinc-800 px-1">Esc</kbd> goes to the console · <kbd className="rounded bg-zinc-800 px-1">Ctrl+M</kbd> makes Tab move focus
        </span>
        <button
          type="button"
          data-testid="run"
          onClick={run}
          disabled={disabled}
          className="rounded bg-emerald-700 px-2 py-0.5 font-medium text-white hover:bg-emerald-600 disabled:opacity-40"
        >
          Run ▶
        </button>
      </div>
      <div data-testid="editor" className="min-h-0 flex-1" data-ready={EditorComponent ? "1" : "0"}>
        {EditorComponent ? (
          <EditorComponent
            height="100%"
            theme="studio-dark"
            language={language}
            defaultValue={defaultValue ?? ""}
            onMount={onMount}
            options={{
              minimap: { enabled: false },
              fontSize: 13,
              scrollBeyondLastLine: false,
              automaticLayout: true,
              tabSize: 4,
              wordWrap: "on",
              readOnly: disabled,
            }}
          />
        ) : (
          <div className="p-3 text-xs text-zinc-400">Loading the editor…</div>
        )}
      </div>
    </div>
  );
}
