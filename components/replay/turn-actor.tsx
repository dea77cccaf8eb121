import type { ReplayTurn } from "@/lib/db/episode-rows";

const SOURCE_WORDS: Record<string, string> = { terminal: "console", console: "console", editor: "editor", model: "model", replay: "replayed" };

/**
 * Who played a turn and through what: "human · console", "human · editor", "model". In a model
 * episode a person's turn is a take-over and is marked as one.
 */
export function TurnActor({ turn, playerKind }: { turn: Pick<ReplayTurn, "actor" | "source">; playerKind: string }) {
  const source = turn.source ? (SOURCE_WORDS[turn.source] ?? turn.source) : null;
  const takeover = playerKind === "model" && turn.actor === "human";
  return (
    <span
      data-testid="turn-actor"
      data-actor={turn.actor}
      data-source={turn.source ?? ""}
      className={takeover ? "rounded bg-amber-900/60 px-1 text-amber-200" : "text-zinc-400"}
    >
      {turn.actor}
      {source && source !== turn.actor ? ` · ${source}` : ""}
      {takeover && <span data-testid="takeover"> · taken over by a person</span>}
    </span>
  );
}
