import { NextResponse } from "next/server";
import { toHttp } from "@/lib/errors";
import { listModels, publicModelView } from "@/lib/agent/models";
import { listPolicies } from "@/lib/agent/policies/registry";

export const dynamic = "force-dynamic";

/** GET /api/agent/models: the models, configured and added (with why one is unavailable; never a key), and the policies. */
export function GET() {
  try {
    return NextResponse.json({
      models: listModels().map(publicModelView),
      policies: listPolicies().map((p) => ({ name: p.name, summary: p.summary })),
    });
  } catch (err) {
    const { status, body } = toHttp(err);
    return NextResponse.json(body, { status });
  }
}
