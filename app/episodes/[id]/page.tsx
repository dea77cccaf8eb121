import { notFound } from "next/navigation";
import type { Metadata } from "next";
import { ReplayView } from "@/components/replay/replay-view";
import { getReplayDataById } from "@/lib/db/viewer-queries";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: `Episode ${id.slice(0, 8)} · InterCode Studio` };
}

/** One episode's replay beside the gold solution. */
export default async function EpisodePage({ params }: Props) {
  const { id } = await params;
  const data = getReplayDataById({ id: decodeURIComponent(id) });
  if (!data) notFound();
  return <ReplayView key={data.episode.id} initial={data} />;
}
