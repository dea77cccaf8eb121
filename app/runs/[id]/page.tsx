import { notFound } from "next/navigation";
import type { Metadata } from "next";
import Link from "next/link";
import { RunLive } from "@/components/runs/run-live";
import { listRuns } from "@/lib/db/runs";
import { buildRunView } from "@/lib/runs/run-view";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  const view = await buildRunView(id);
  return { title: `${view?.name ?? "Run"} · InterCode Studio` };
}

/** /runs/<id>: one run, live while it runs, its measures and per-task table once finished. */
export default async function RunPage({ params }: Props) {
  const { id } = await params;
  const view = await buildRunView(id);
  if (!view) notFound();
  const others = (await listRuns({ limit: 200 })).filter((r) => r.id !== id).map((r) => ({ id: r.id, name: r.name }));
  return (
    <div className="space-y-2 p-4">
      <Link href="/runs" className="text-xs text-sky-400 underline">
        all runs
      </Link>
      <RunLive initial={view} others={others} />
    </div>
  );
}
