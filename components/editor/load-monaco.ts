"use client";

import type * as Monaco from "monaco-editor/editor/editor.api";

type MonacoApi = typeof Monaco;
let ready: Promise<MonacoApi> | null = null;

/**
 * Loads Monaco from the local monaco-editor package and points @monaco-editor/react's loader at
 * it (`loader.config({ monaco })`), so no script, style or worker is fetched from a CDN. The editor
 * worker is bundled from the same package. Browser only; loaded once per page.
 */
export function loadLocalMonaco(): Promise<MonacoApi> {
  ready ??= (async () => {
    (self as unknown as { MonacoEnvironment: unknown }).MonacoEnvironment = {
      getWorker: () => new Worker(new URL("./editor.worker.ts", import.meta.url), { type: "module", name: "monaco-editor-worker" }),
    };
    const monaco = (await import("./monaco-entry")) as unknown as MonacoApi;
    const { loader } = await import("@monaco-editor/react");
    loader.config({ monaco });
    await loader.init();
    monaco.editor.defineTheme("studio-dark", {
      base: "vs-dark",
      inherit: true,
      rules: [],
      colors: { "editor.background": "#0c0c0f", "editor.lineHighlightBackground": "#18181b" },
    });
    return monaco;
  })();
  return ready;
}
