// Node resolve hooks for code run outside Next.js (the custom server, the CLI, benchmarks).
// `server-only` throws unless resolved under the "react-server" condition; outside a React
// bundle there is no client to protect, so map it to its empty module.
import { register } from "node:module";

register(
  "data:text/javascript," +
    encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (specifier === "server-only") {
    return { url: ${JSON.stringify(new URL("../node_modules/server-only/empty.js", import.meta.url).href)}, shortCircuit: true };
  }
  return next(specifier, context);
}`),
  import.meta.url,
);
