import { NextResponse, type NextRequest } from "next/server";
import { parseJsonBody, respond } from "@/lib/http/respond";
import { listScanJobs, startScan } from "@/lib/scan/scan-jobs";
import { startScanBodySchema } from "./schema";

export const dynamic = "force-dynamic";

/** GET /api/scans: the scans started in this server, with their progress. */
export function GET() {
  return respond(() => NextResponse.json({ scans: listScanJobs() }));
}

/**
 * POST /api/scans: starts a scanner (a question put to a model about each episode a filter
 * matches). 400 naming the field (a bad filter key, a tag that is not one), 404 for an unknown
 * model. 201 {scanId}; the answers are stored as machine tags as they come.
 */
export function POST(req: NextRequest) {
  return respond(async () => NextResponse.json(startScan(await parseJsonBody(req, startScanBodySchema)), { status: 201 }));
}
