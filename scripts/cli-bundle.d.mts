// Types of scripts/cli-bundle.mjs, for the tests that import it.
/** The current build's entry for `name` when every input is as it was built from, else null. */
export function freshBundle(name?: "main" | "import-worker", root?: string): string | null;
/** Builds the CLI of the checkout at `root` and makes it current; returns the entry of `name`. */
export function buildBundle(name?: "main" | "import-worker", root?: string): Promise<string>;
