import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  reactStrictMode: true,
  serverExternalPackages: ["better-sqlite3", "dockerode", "ssh2", "cpu-features", "mysql2", "@prisma/adapter-better-sqlite3"],
  typedRoutes: false,
  devIndicators: false,
  poweredByHeader: false,
};

export default nextConfig;
