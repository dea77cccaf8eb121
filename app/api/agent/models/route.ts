import { NextResponse } from "next/server";
import { toHttp } from "@/lib/errors";
import { listModels } from "@/lib/agent/models";
import { listPolicies } from "@/lib/agent/policies/registry";

export const dynamic = "force-dynamic";

/** GET /api/agent/models: the configured models (with why one is unavailable) and the policies. */
export function GET() {
  try {
    return NextResponse.json({
      models: listModels().map((m) => ({ id: m.id, provider: m.provider, model: m.model, available: m.available, reason: m.reason ?? null })),
      policies: listPolicies().map((p) => ({ name: p.name, summary: p.summary })),
    });
  } catch (err) {
    const { status, body } = toHttp(err);
    return NextResponse.json(body, { status });
  }
}
