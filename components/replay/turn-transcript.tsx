"use client";

import { useState } from "react";
import type { TurnTranscript as TurnTranscriptData } from "@/lib/agent/transcript";

type Loaded = TurnTranscriptData & { tokensIn: number | null; tokensOut: number | null; latencyMs: number | null; costUsd: number | null };

const fmtCost = (usd: number) => (usd === 0 ? "$0" : usd < 0.01 ? `$${usd.toFixed(5)}` : `$${usd.toFixed(3)}`);

function Message({ who, content, note }: { who: string; content: string; note?: string }) {
  return (
    <div className="space-y-0.5">
      <div className="text-[11px] uppercase tracking-wide text-zinc-400">
        {who}
        {note ? ` · ${note}` : ""}
      </div>
      <pre className="max-h-64 overflow-auto whitespace-pre-wrap break-words rounded bg-zinc-900 p-1.5 text-xs text-zinc-200">{content}</pre>
    </div>
  );
}

/**
 * What the model was sent at one turn and what it answered, collapsed until opened (then loaded
 * from /api/episodes/:id/transcript): the system prompt, the conversation as the policy built it,
 * the raw reply; tokens in and out, latency and cost in the summary line.
 */
export function TurnTranscript({
  episodeId,
  turnIndex,
  tokensIn = null,
  tokensOut = null,
  latencyMs = null,
  costUsd = null,
  label = "transcript",
}: {
  episodeId: string;
  turnIndex: number;
  tokensIn?: number | null;
  tokensOut?: number | null;
  latencyMs?: number | null;
  costUsd?: number | null;
  label?: string;
}) {
  const [data, setData] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = async () => {
    if (data) return;
    try {
      const res = await fetch(`/api/episodes/${encodeURIComponent(episodeId)}/transcript?turn=${turnIndex}`);
      const json = await res.json();
      if (!res.ok) throw new Error(json?.error?.message ?? `HTTP ${res.status}`);
      setData(json as Loaded);
    } catch (err) {
      setError((err as Error).message);
    }
  };

  const facts = [
    tokensIn !== null || tokensOut !== null ? `tokens ${tokensIn ?? "?"} in / ${tokensOut ?? "?"} out` : null,
    latencyMs !== null ? `${latencyMs} ms` : null,
    costUsd !== null ? fmtCost(costUsd) : null,
  ].filter(Boolean);

  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the click only stops the row under it from taking the pick; the summary opens by keyboard as any details does
    <details
      className="mt-1 text-xs"
      data-testid="transcript"
      onToggle={(e) => (e.currentTarget.open ? void load() : undefined)}
      onClick={(e) => e.stopPropagation()}
    >
      <summary className="cursor-pointer text-zinc-400 hover:text-zinc-200">
        {label}
        {facts.length ? ` · ${facts.join(" · ")}` : ""}
      </summary>
      <div className="mt-1 space-y-2 border-l border-zinc-700 pl-2" data-testid="transcript-body">
        {error && (
          <p className="text-red-300" role="alert">
            {error}
          </p>
        )}
        {!data && !error && <p className="text-zinc-400">loading…</p>}
        {data && data.calls.length === 0 && data.unanswered.length === 0 && <p className="text-zinc-400">no transcript stored for this turn</p>}
        {data?.calls.map((c, i) => (
          <div key={c.replySeq} className="space-y-1.5" data-testid="transcript-call">
            {data.calls.length > 1 && (
              <div className="font-semibold text-zinc-300">
                call {i + 1} of {data.calls.length}
              </div>
            )}
            <details>
              <summary className="cursor-pointer text-zinc-400">system prompt</summary>
              <pre className="max-h-64 overflow-auto whitespace-pre-wrap break-words rounded bg-zinc-900 p-1.5 text-zinc-200" data-testid="transcript-system">
                {c.system}
              </pre>
            </details>
            {c.droppedTurns > 0 && (
              <p className="text-amber-300">
                {c.droppedTurns} earlier turn{c.droppedTurns === 1 ? " was" : "s were"} left out to fit the context
              </p>
            )}
            <div className="space-y-1" data-testid="transcript-sent">
              {c.sent.map((m) => (
                <Message key={m.seq} who={m.role === "user" ? "sent" : "earlier reply"} content={m.content} />
              ))}
            </div>
            <div data-testid="transcript-reply">
              <Message who="raw reply" content={c.reply} />
            </div>
          </div>
        ))}
        {data && data.unanswered.length > 0 && (
          <div className="space-y-1" data-testid="transcript-unanswered">
            {data.unanswered.map((m) => (
              <Message key={m.seq} who={m.role} note="no reply" content={m.content} />
            ))}
          </div>
        )}
      </div>
    </details>
  );
}
