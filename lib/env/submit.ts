/**
 * The one submit parser. A typed or generated action is a submit when it is the word `submit`
 * (any case) alone, with a statement-ending `;` (SQL: `submit;`, as in InterCode's human logs),
 * or followed by whitespace and an argument: `submit <function>` (python), `submit <flag>` (ctf).
 * `exact` is InterCode's own check (profile intercode, and logged actions): lower-case `submit`,
 * no `;` form, so `submit;` is a query. The playground, the environments, model runs, recheck and
 * branch all ask this function. Client-safe: no server code.
 */

const SUBMIT = /^\s*submit(?:\s*;|\s+([\s\S]*?))?\s*$/i;
const EXACT = /^\s*submit(?:\s+([\s\S]*?))?\s*$/;

export interface SubmitOptions {
  /** InterCode's check: lower-case, and `submit;` is not a submit. */
  exact?: boolean;
}

/** The submit's argument ("" for a bare submit), or null when `action` is not a submit. */
export function parseSubmit(action: string, options: SubmitOptions = {}): { arg: string } | null {
  const m = (options.exact ? EXACT : SUBMIT).exec(action);
  if (!m) return null;
  return { arg: m[1] ?? "" };
}

/** Whether `action` is a submit. */
export function isSubmit(action: string, options: SubmitOptions = {}): boolean {
  return parseSubmit(action, options) !== null;
}
