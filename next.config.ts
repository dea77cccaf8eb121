import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  reactStrictMode: true,
  // IC_NEXT_DIST_DIR lets a test run serve its own copy of a build while others rebuild .next.
  distDir: process.env.IC_NEXT_DIST_DIR || ".next",
  serverExternalPackages: ["better-sqlite3", "dockerode", "ssh2", "cpu-features", "mysql2", "@prisma/adapter-better-sqlite3", "pg", "@prisma/adapter-pg"],
  typedRoutes: false,
  devIndicators: false,
  poweredByHeader: false,
  // Types are checked by `npm run typecheck` (its own CI step, over the whole repository);
  // checking them again inside `next build` doubles the build time on small machines.
  typescript: { ignoreBuildErrors: true },
};

export default nextConfig;
