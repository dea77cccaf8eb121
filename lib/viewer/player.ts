/** Who played an episode, as the viewer names them: the annotator, else the model (and policy), else the player kind. */
export function playerLabel(e: { annotator?: string | null; model?: string | null; policy?: string | null; playerKind: string }): string {
  return e.annotator ?? (e.model ? `${e.model}${e.policy ? ` · ${e.policy}` : ""}` : e.playerKind);
}
