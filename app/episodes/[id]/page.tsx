import { notFound } from "next/navigation";
import type { Metadata } from "next";
import { ReplayView } from "@/components/replay/replay-view";
import { getReplayHeaderById } from "@/lib/db/viewer-queries";
import { findSeal, sealMessage } from "@/lib/studies/baseline-seal";

export const dynamic = "force-dynamic";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  return { title: `Episode ${id.slice(0, 8)} · InterCode Studio` };
}

/**
 * One episode's replay beside the gold solution; `?turn=N` (1-based) opens turn N. The page carries
 * the header and the window of turns around turn N; the replay fetches the others as it moves.
 */
export default async function EpisodePage({ params, searchParams }: Props) {
  const { id } = await params;
  const turnParam = (await searchParams).turn;
  const turn = Number(Array.isArray(turnParam) ? turnParam[0] : turnParam);
  const initialTurn = Number.isInteger(turn) && turn >= 1 ? turn : undefined;
  const data = await getReplayHeaderById({ id: decodeURIComponent(id), turn: (initialTurn ?? 1) - 1 });
  if (!data) notFound();
  const seal = await findSeal(data.episode);
  if (seal)
    return (
      <p className="p-4 text-sm text-amber-400" data-testid="sealed">
        {sealMessage(data.episode, seal, "Viewing this episode")}
      </p>
    );
  return <ReplayView key={data.episode.id} initial={data} initialTurn={initialTurn} />;
}
