/** Why a model episode stopped early (a provider's error, a sandbox that failed), as stored on the episode. */
export function EpisodeFailure({ status, errorReason }: { status: string; errorReason: string | null }) {
  if (!errorReason || (status !== "error" && status !== "interrupted")) return null;
  return (
    <p className="rounded border border-red-900 bg-red-950/40 px-2 py-1 text-xs text-red-200" role="alert" data-testid="episode-error">
      {status === "error" ? "ended with an error" : "interrupted"}: {errorReason}
    </p>
  );
}
