/** Monaco's editor worker, bundled from the local package (no CDN). */
import "monaco-editor/editor/editor.worker";
