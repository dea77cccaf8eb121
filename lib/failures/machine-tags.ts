import { DETECTORS, lastError, runDetectors, type DetectorEpisode } from "./detectors";

/**
 * What the detectors store of an episode: a machine tag per detector hit, on the first turn it
 * points at (the hit's evidence and all its turns as its text: one row a hit keeps the import's
 * writes small), and the episode's last error, normalised (tag `last-error`, the failure groups'
 * cluster). Each tag names its producer (author) and carries its provenance. Client-safe: pure.
 */

/** The tag holding an ended, failing episode's last error (its text is the normalised message). */
export const LAST_ERROR_TAG = "last-error";
const LAST_ERROR_VERSION = 1;

/** Every producer the detectors' write replaces the tags of. */
export const DETECTOR_AUTHORS: readonly string[] = [...DETECTORS.map((d) => d.name), LAST_ERROR_TAG];

/** A machine tag of one episode, before it is stored (lib/db/annotations.ts MachineTagInput without the episode). */
export interface DetectorTag {
  turnIndex: number | null;
  tag: string;
  text: string | null;
  author: string;
  provenance: { detector: string; version: number };
}

/** What `detectorTagsOf` wrote in a hit's text besides the evidence: every turn it points at (1-based), when more than one. */
const HIT_TURNS = / \(turns ((?:\d+, )*\d+)\)$/;

/**
 * A stored detector tag read back as the hit it was: the turns it points at (0-based: the tag's own
 * turn, or all of those its text lists) and the evidence.
 */
export function readDetectorTag({ turnIndex, text }: { turnIndex: number | null; text: string | null }): { turns: number[]; evidence: string } {
  const m = HIT_TURNS.exec(text ?? "");
  if (!m) return { turns: turnIndex === null ? [] : [turnIndex], evidence: text ?? "" };
  return { turns: m[1].split(", ").map((n) => Number(n) - 1), evidence: (text ?? "").slice(0, m.index) };
}

/** The detectors' tags of an episode (none while it runs; the last error only when it failed). */
export function detectorTagsOf(ep: DetectorEpisode): DetectorTag[] {
  const out: DetectorTag[] = [];
  for (const h of runDetectors(ep)) {
    const turns = h.turns.length > 1 ? ` (turns ${h.turns.map((t) => t + 1).join(", ")})` : "";
    out.push({
      turnIndex: h.turns[0] ?? null,
      tag: h.detector,
      text: h.evidence + turns,
      author: h.detector,
      provenance: { detector: h.detector, version: h.version },
    });
  }
  if (ep.status !== "running" && ep.status !== "interrupted" && !ep.success) {
    const e = lastError(ep);
    if (e)
      out.push({
        turnIndex: e.turn,
        tag: LAST_ERROR_TAG,
        text: e.message,
        author: LAST_ERROR_TAG,
        provenance: { detector: LAST_ERROR_TAG, version: LAST_ERROR_VERSION },
      });
  }
  return out;
}
