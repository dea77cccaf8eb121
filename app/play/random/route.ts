import { NextResponse, type NextRequest } from "next/server";
import { toHttp } from "@/lib/errors";
import { randomTask } from "@/lib/tasks/tasks";
import { playUrl } from "@/lib/tasks/task-ref";
import { pickerParamsSchema, playParamsSchema, playQuery } from "../search-params";

export const dynamic = "force-dynamic";

/** GET /play/random?env=&dataset=&q=&hardness=&db=&fs= → redirects to a random matching task. */
export function GET(req: NextRequest) {
  try {
    const raw = Object.fromEntries(req.nextUrl.searchParams);
    const p = pickerParamsSchema.parse(raw);
    const play = playParamsSchema.parse(raw);
    const t = randomTask({ env: p.env ?? "bash", dataset: p.dataset, q: p.q, hardness: p.hardness, db: p.db, fs: p.fs });
    if (!t) return NextResponse.redirect(new URL(`/play?${req.nextUrl.searchParams}`, req.nextUrl.origin), 303);
    return new NextResponse(null, {
      status: 303,
      headers: { location: playUrl(t.env, t.dataset, t.id) + playQuery({ mode: play.mode, feedback: play.feedback, limit: play.limit }) },
    });
  } catch (err) {
    const { status, body } = toHttp(err);
    return NextResponse.json(body, { status });
  }
}
