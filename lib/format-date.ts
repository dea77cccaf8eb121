/**
 * The one way the pages write a moment: `2026-12-01 07:42 UTC` (ISO order, minutes, always UTC, so
 * the server's rendering and the browser's agree and two pages never disagree on a time).
 */
export function formatDate(value: Date | number | string | null | undefined): string {
  if (value === null || value === undefined) return "–";
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return "–";
  return `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** A span of milliseconds as `m:ss` (or `h:mm:ss` from an hour). */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "–";
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}
