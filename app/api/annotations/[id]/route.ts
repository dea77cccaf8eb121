import { NextResponse } from "next/server";
import { deleteAnnotationById, updateAnnotationStatus } from "@/lib/db/annotations";
import { parseInput, parseJsonBody, respond } from "@/lib/http/respond";
import { annotationParamsSchema, annotationPatchSchema } from "./schema";

export const dynamic = "force-dynamic";

/** PATCH /api/annotations/:id: sets a tag's status. */
export function PATCH(req: Request, ctx: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = parseInput(annotationParamsSchema, await ctx.params, "path");
    const { status } = await parseJsonBody(req, annotationPatchSchema);
    return NextResponse.json(await updateAnnotationStatus({ id, status }));
  });
}

/** DELETE /api/annotations/:id */
export function DELETE(_req: Request, ctx: { params: Promise<{ id: string }> }) {
  return respond(async () => {
    const { id } = parseInput(annotationParamsSchema, await ctx.params, "path");
    await deleteAnnotationById({ id });
    return new NextResponse(null, { status: 204 });
  });
}
