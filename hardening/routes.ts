import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

/** Default sample values for dynamic segments, by segment name. */
export const ROUTE_SAMPLES: Record<string, string> = {
  id: "00000000-0000-7000-8000-000000000000",
  env: "bash",
  taskId: "demo-bash:count-python-files",
  taskRef: "demo-bash:count-python-files",
  participantId: "00000000-0000-7000-8000-000000000001",
};

/** One page or route handler of the app. */
export interface AppRoute {
  /** The URL path with the dynamic segments filled in. */
  url: string;
  /** The file-system pattern, e.g. /api/episodes/[id]/gold. */
  pattern: string;
  kind: "page" | "route";
  methods: string[];
  file: string;
}

/**
 * Every page and route handler under app/, as URL paths with the methods to try. Dynamic segments
 * take `samples(name, pattern)` (default: ROUTE_SAMPLES by segment name); a segment without a
 * sample throws, so a new one cannot be skipped silently.
 */
export function appRoutes(
  samples: (name: string, pattern: string) => string | undefined = (n) => ROUTE_SAMPLES[n],
  appDir = path.join(ROOT, "app"),
): AppRoute[] {
  const out: AppRoute[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name === "page.tsx" || e.name === "route.ts") {
        const raw = path
          .relative(appDir, dir)
          .split(path.sep)
          .filter((s) => s && !/^\(.*\)$/.test(s)); // route groups do not appear in URLs
        const pattern = `/${raw.join("/")}`;
        const segs = raw.map((s) => {
          const m = /^\[{1,2}(?:\.\.\.)?([^\]]+)\]{1,2}$/.exec(s);
          if (!m) return s;
          const v = samples(m[1], pattern);
          if (v === undefined) throw new Error(`no sample value for the dynamic segment [${m[1]}] in ${full}: add one`);
          return encodeURIComponent(v);
        });
        const url = `/${segs.join("/")}`;
        if (e.name === "page.tsx") out.push({ url, pattern, kind: "page", methods: ["GET", "HEAD"], file: full });
        else {
          const src = fs.readFileSync(full, "utf8");
          const methods = METHODS.filter((m) => new RegExp(`export\\s+(async\\s+)?(function|const)\\s+${m}\\b`).test(src));
          if (methods.length === 0) throw new Error(`${full} exports no HTTP method this test recognises`);
          out.push({ url, pattern, kind: "route", methods, file: full });
        }
      }
    }
  };
  walk(appDir);
  return out;
}
