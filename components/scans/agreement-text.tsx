import type { Agreement } from "@/lib/scan/agreement";

const ratio = (x: number | null) => (x === null ? "–" : x.toFixed(2));

/** How far a scanner was checked against people (precision, recall, Cohen's kappa), or that it was not. */
export function AgreementText({ a }: { a: Agreement | null }) {
  if (!a) return <span className="text-amber-400">unchecked: no person tagged these episodes</span>;
  return (
    <span>
      on {a.episodes} episode{a.episodes === 1 ? "" : "s"} people tagged: precision {ratio(a.precision)}, recall {ratio(a.recall)}, kappa {ratio(a.kappa)}
    </span>
  );
}
