import { NextResponse, type NextRequest } from "next/server";
import { addModel, listModels, publicModelView } from "@/lib/agent/models";
import { parseJsonBody, respond } from "@/lib/http/respond";
import { addModelBodySchema } from "./schema";

export const dynamic = "force-dynamic";

/** GET /api/models: every model (configured and added) with whether a key is set and its last connection test; never a key. */
export function GET() {
  return respond(() => NextResponse.json({ models: listModels().map(publicModelView) }));
}

/** POST /api/models: adds a model (its key, if sent, stays on the server); answers the model as listed. */
export function POST(req: NextRequest) {
  return respond(async () => {
    const input = await parseJsonBody(req, addModelBodySchema);
    return NextResponse.json({ model: publicModelView(addModel(input)) }, { status: 201 });
  });
}
