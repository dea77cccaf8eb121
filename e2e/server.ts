// The e2e tests and global setup take these from here; they live in lib/testing/studio-server.ts.
export { ensureBuild, ROOT, startServer, type RunningServer } from "@/lib/testing/studio-server";
