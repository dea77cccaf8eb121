import { NextResponse, type NextRequest } from "next/server";
import { BadInputError, toHttp } from "@/lib/errors";
import { nextStudyTask } from "@/lib/server/studies";
import { studyNextQuerySchema } from "./schema";

export const dynamic = "force-dynamic";

/** The annotator's next task in a study (its URL and position), or href null when done. */
export async function GET(req: NextRequest, { params }: { params: Promise<{ id: string }> }) {
  try {
    const { id } = await params;
    const parsed = studyNextQuerySchema.safeParse(Object.fromEntries(req.nextUrl.searchParams));
    if (!parsed.success) throw new BadInputError(parsed.error.issues[0].message, "query parameter annotator");
    return NextResponse.json(await nextStudyTask(id, parsed.data.annotator));
  } catch (err) {
    const { status, body } = toHttp(err);
    return NextResponse.json(body, { status });
  }
}
