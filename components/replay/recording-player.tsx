"use client";

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { Button } from "@/components/ui/button";
import { applyEditorChange, limitIdle, timeline, type Recording, type TimedEvent } from "@/lib/recording/events";

const SPEEDS = [0.5, 1, 2, 4, 8] as const;
const TICK_MS = 50;

const fmt = (ms: number) => {
  const s = ms / 1000;
  return `${Math.floor(s / 60)}:${(s % 60).toFixed(1).padStart(4, "0")}`;
};

/**
 * Plays a person's recorded session (console and editor) in step with the replay's turns: play,
 * pause, speed, a time slider, jump to a turn; the turn being played is selected in the replay
 * (`onTurn`), and picking a turn there moves the player to its start. The recording is loaded
 * from its own API when the player is shown, so the replay page does not carry it.
 */
export function RecordingPlayer({
  episodeId,
  current,
  turnCount,
  onTurn,
}: {
  episodeId: string;
  current: number;
  turnCount: number;
  onTurn(index: number): void;
}) {
  const [recording, setRecording] = useState<Recording | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    fetch(`/api/episodes/${encodeURIComponent(episodeId)}/recording`)
      .then(async (r) => {
        if (!r.ok) throw new Error(((await r.json().catch(() => ({}))) as { error?: { message?: string } }).error?.message ?? `HTTP ${r.status}`);
        return (await r.json()) as Recording;
      })
      .then((r) => live && setRecording(r))
      .catch((err: Error) => live && setError(`the recording could not be loaded: ${err.message}`));
    return () => {
      live = false;
    };
  }, [episodeId]);

  if (error)
    return (
      <p className="text-xs text-amber-400" data-testid="recording-error">
        {error}
      </p>
    );
  if (!recording)
    return (
      <p className="text-xs text-zinc-400" data-testid="recording-loading">
        loading the recording…
      </p>
    );
  if (recording.chunks.length === 0) return null;
  return <Player episodeId={episodeId} recording={recording} current={current} turnCount={turnCount} onTurn={onTurn} />;
}

function Player({
  episodeId,
  recording,
  current,
  turnCount,
  onTurn,
}: {
  episodeId: string;
  recording: Recording;
  current: number;
  turnCount: number;
  onTurn(index: number): void;
}) {
  const events = useMemo<TimedEvent[]>(() => limitIdle(timeline(recording)), [recording]);
  const duration = events.at(-1)?.t ?? 0;
  const turnStarts = useMemo(() => {
    const m = new Map<number, number>();
    for (const e of events) if (!m.has(e.turnIndex)) m.set(e.turnIndex, e.t);
    return m;
  }, [events]);

  const [clock, setClock] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<(typeof SPEEDS)[number]>(1);
  const termEl = useRef<HTMLDivElement | null>(null);
  const term = useRef<Terminal | null>(null);
  /** How many events the console and editor show. */
  const shown = useRef(0);
  const [editorText, setEditorText] = useState("");
  const editorRef = useRef("");
  const [termReady, setTermReady] = useState(false);
  /** The turn the player last reported, so the replay's answer does not move the player back. */
  const reported = useRef<number | null>(null);

  useEffect(() => {
    const el = termEl.current;
    if (!el) return;
    let disposed = false;
    let t: Terminal | null = null;
    void (async () => {
      const [{ Terminal }, { FitAddon }] = await Promise.all([import("@xterm/xterm"), import("@xterm/addon-fit")]);
      if (disposed) return;
      t = new Terminal({
        cols: recording.cols ?? 100,
        rows: Math.min(recording.rows ?? 16, 16),
        disableStdin: true,
        fontSize: 12,
        scrollback: 2000,
        theme: { background: "#09090b", foreground: "#e4e4e7" },
      });
      const fit = new FitAddon();
      t.loadAddon(fit);
      t.open(el);
      // The recording's width, so lines wrap where they did.
      if (!recording.cols) fit.fit();
      term.current = t;
      setTermReady(true);
    })();
    return () => {
      disposed = true;
      t?.dispose();
      term.current = null;
    };
  }, [recording.cols, recording.rows]);

  /** Shows the events up to `ms`: writes on from where the console is, or redraws from the start when going back. */
  const render = useCallback(
    (ms: number) => {
      const t = term.current;
      if (!t) return;
      let i = shown.current;
      if (i > 0 && events[i - 1].t > ms) {
        t.reset();
        i = 0;
        editorRef.current = "";
      }
      let out = "";
      let text = editorRef.current;
      for (; i < events.length && events[i].t <= ms; i++) {
        const e = events[i];
        if (e.kind === "o") out += e.data;
        else if (e.kind === "e") text = applyEditorChange(text, e.data);
      }
      if (out) t.write(out);
      shown.current = i;
      editorRef.current = text;
      setEditorText(text);
      const turn = i > 0 ? events[i - 1].turnIndex : (events[0]?.turnIndex ?? 0);
      const clamped = Math.max(0, Math.min(turnCount - 1, turn));
      if (turnCount > 0 && reported.current !== clamped) {
        reported.current = clamped;
        onTurn(clamped);
      }
    },
    [events, onTurn, turnCount],
  );

  useEffect(() => {
    if (termReady) render(clock);
  }, [termReady, clock, render]);

  useEffect(() => {
    if (!playing) return;
    const id = setInterval(() => {
      setClock((c) => {
        const next = Math.min(duration, c + TICK_MS * speed);
        if (next >= duration) setPlaying(false);
        return next;
      });
    }, TICK_MS);
    return () => clearInterval(id);
  }, [playing, speed, duration]);

  // A turn picked in the replay (not the one the player is on): go to its start.
  useEffect(() => {
    if (current < 0 || reported.current === current) return;
    const start = turnStarts.get(current);
    if (start === undefined) return;
    reported.current = current;
    setClock(start);
  }, [current, turnStarts]);

  const toggle = () => {
    if (!playing && clock >= duration) setClock(0);
    setPlaying((p) => !p);
  };

  return (
    <section
      aria-labelledby="recording-title"
      className="space-y-2 rounded border border-zinc-800 p-2"
      data-testid="recording-player"
      data-clock={Math.round(clock)}
      data-playing={playing ? "1" : "0"}
      // The replay's own keys (space plays the turns, arrows step) stay out of the player's controls.
      onKeyDown={(e) => e.stopPropagation()}
    >
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <h2 id="recording-title" className="font-semibold text-zinc-200">
          Recording
        </h2>
        <Button onClick={toggle} data-testid="recording-play" aria-pressed={playing}>
          {playing ? "pause" : "play"}
        </Button>
        <label className="flex items-center gap-1 text-zinc-300">
          speed
          <select
            className="rounded border border-zinc-700 bg-zinc-900 px-1"
            value={speed}
            onChange={(e) => setSpeed(Number(e.target.value) as (typeof SPEEDS)[number])}
            data-testid="recording-speed"
          >
            {SPEEDS.map((s) => (
              <option key={s} value={s}>
                {s}×
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-1 text-zinc-300">
          jump to turn
          <select
            className="rounded border border-zinc-700 bg-zinc-900 px-1"
            value=""
            onChange={(e) => {
              const k = Number(e.target.value);
              const start = turnStarts.get(k);
              if (start !== undefined) setClock(start);
            }}
            data-testid="recording-turn"
          >
            <option value="">—</option>
            {[...turnStarts.keys()]
              .filter((k) => k < Math.max(1, turnCount))
              .map((k) => (
                <option key={k} value={k}>
                  turn {k + 1}
                </option>
              ))}
          </select>
        </label>
        <input
          type="range"
          min={0}
          max={Math.max(1, duration)}
          step={100}
          value={clock}
          onChange={(e) => setClock(Number(e.target.value))}
          aria-label="position in the recording"
          aria-valuetext={`${fmt(clock)} of ${fmt(duration)}`}
          className="min-w-32 flex-1 accent-emerald-500"
          data-testid="recording-seek"
        />
        <span className="font-mono text-zinc-300" data-testid="recording-time">
          {fmt(clock)} / {fmt(duration)}
        </span>
        <a className="text-sky-400 underline" href={`/api/episodes/${encodeURIComponent(episodeId)}/recording.cast`} download data-testid="recording-cast">
          download .cast
        </a>
      </div>
      {recording.truncated && (
        <p className="text-xs text-amber-400" data-testid="recording-truncated">
          The recording reached its size cap: what came after it was not recorded.
        </p>
      )}
      <div className="grid gap-2 md:grid-cols-2">
        <div>
          <h3 className="mb-1 text-xs text-zinc-400">Console</h3>
          <div ref={termEl} className="overflow-hidden bg-[#09090b] p-1" data-testid="recording-console" />
        </div>
        <div>
          <h3 className="mb-1 text-xs text-zinc-400">Editor</h3>
          <pre
            className="max-h-64 min-h-16 overflow-auto whitespace-pre-wrap rounded bg-zinc-900 p-1.5 font-mono text-xs text-zinc-100"
            data-testid="recording-editor"
            tabIndex={0}
            role="region"
            aria-label="the recorded editor"
          >
            {editorText}
          </pre>
        </div>
      </div>
    </section>
  );
}
