/**
 * The Monaco build the playground uses: the editor API from the LOCAL monaco-editor package, the
 * editing features a player needs, and the three languages of the environments. Importing only
 * these keeps the bundle small (the full package also carries TypeScript, CSS, HTML and JSON
 * language services and 80 other languages). Loaded in the browser only.
 */
// The package exports map hides CSS files, so the icon font stylesheet is imported by path.
import "../../node_modules/monaco-editor/esm/vs/base/browser/ui/codicons/codicon/codicon.css";
import "monaco-editor/editor/browser/coreCommands";
import "monaco-editor/editor/contrib/bracketMatching/browser/bracketMatching";
import "monaco-editor/editor/contrib/clipboard/browser/clipboard";
import "monaco-editor/editor/contrib/comment/browser/comment";
import "monaco-editor/features/find/register";
import "monaco-editor/editor/contrib/folding/browser/folding";
import "monaco-editor/editor/contrib/linesOperations/browser/linesOperations";
import "monaco-editor/editor/contrib/multicursor/browser/multicursor";
import "monaco-editor/editor/contrib/wordOperations/browser/wordOperations";
// Ctrl+M (Ctrl+Shift+M on a Mac): Tab moves focus instead of indenting, so keyboard users can leave the editor.
import "monaco-editor/editor/contrib/toggleTabFocusMode/browser/toggleTabFocusMode";
import "monaco-editor/languages/definitions/shell/register";
import "monaco-editor/languages/definitions/sql/register";
import "monaco-editor/languages/definitions/python/register";

export * from "monaco-editor/editor/editor.api";
