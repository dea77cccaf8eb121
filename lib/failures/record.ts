import "server-only";
import { writeMachineTags, type MachineTagInput } from "@/lib/db/annotations";
import type { EpisodeFilters } from "@/lib/db/episode-filters";
import { getEpisodeById } from "@/lib/db/episodes";
import { iterateEpisodesWithTurns } from "@/lib/db/export-queries";
import type { DetectorEpisode } from "./detectors";
import { DETECTOR_AUTHORS, detectorTagsOf } from "./machine-tags";

// Running the detectors over stored episodes: at the end of a played episode (live play and model
// runs, lib/episodes/db-recorder.ts), and again over a filtered set (`icstudio failures --detect`,
// for episodes stored before a detector existed or changed). Imports store them with the episode
// (lib/trajectories/parse-log.ts toBulkEpisode).

type StoredForDetectors = DetectorEpisode & { id: string };

function tagsOf(ep: StoredForDetectors): MachineTagInput[] {
  return detectorTagsOf(ep).map((t) => ({ ...t, episodeId: ep.id }));
}

/** Runs the detectors over one stored episode and replaces its detector tags. */
export async function detectEpisodeById({ episodeId }: { episodeId: string }): Promise<number> {
  const ep = await getEpisodeById({ id: episodeId });
  if (!ep) return 0;
  const tags = tagsOf(ep);
  await writeMachineTags({ source: "detector", authors: DETECTOR_AUTHORS, episodeIds: [ep.id], tags });
  return tags.length;
}

/** Runs the detectors over every stored episode matching `filters`, a batch of episodes per write. */
export async function detectEpisodesByFilters({
  filters = {},
  batchSize = 500,
}: {
  filters?: EpisodeFilters;
  batchSize?: number;
}): Promise<{ episodes: number; tags: number }> {
  let batch: StoredForDetectors[] = [];
  let episodes = 0;
  let tags = 0;
  const flush = async () => {
    if (!batch.length) return;
    const t = batch.flatMap(tagsOf);
    await writeMachineTags({ source: "detector", authors: DETECTOR_AUTHORS, episodeIds: batch.map((e) => e.id), tags: t });
    episodes += batch.length;
    tags += t.length;
    batch = [];
  };
  // The reader pages by offset in a fixed order and holds nothing open between its pages, and tags
  // do not change that order: writing between pages is safe.
  for await (const e of iterateEpisodesWithTurns({ filters, batchSize })) {
    batch.push(e);
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  return { episodes, tags };
}
