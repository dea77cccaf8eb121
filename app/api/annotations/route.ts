import { NextResponse } from "next/server";
import { createAnnotation } from "@/lib/db/annotations";
import { listUsedTags } from "@/lib/db/viewer-queries";
import { parseJsonBody, respond } from "@/lib/http/respond";
import { BASE_TAXONOMY } from "@/lib/failures/suggest-tags";
import { newAnnotationSchema } from "./schema";

export const dynamic = "force-dynamic";

/** GET /api/annotations: the tag taxonomy (the starting set plus every tag users have added). */
export function GET() {
  return respond(async () => {
    const used = await listUsedTags();
    const base = new Set(BASE_TAXONOMY.map((t) => t.tag));
    return NextResponse.json({
      tags: [
        ...BASE_TAXONOMY.map((t) => ({ ...t, accepted: used.find((u) => u.tag === t.tag)?.accepted ?? 0 })),
        ...used.filter((u) => !base.has(u.tag)).map((u) => ({ tag: u.tag, description: "", accepted: u.accepted })),
      ],
    });
  });
}

/** POST /api/annotations: adds a tag or note (author and time recorded). */
export function POST(req: Request) {
  return respond(async () => {
    const a = await parseJsonBody(req, newAnnotationSchema);
    const created = await createAnnotation(a.kind === "tag" ? { ...a, kind: "tag" } : { ...a, kind: "note" });
    return NextResponse.json(created, { status: 201 });
  });
}
