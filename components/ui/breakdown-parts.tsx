import type { BreakdownPart } from "@/lib/reward/explain";

/** A reward breakdown's parts in words (lib/reward/explain.ts): the playground's and the replay's one list. */
export function BreakdownPartList({ parts }: { parts: BreakdownPart[] }) {
  return (
    <ul className="space-y-0.5">
      {parts.map((p) => (
        <li key={p.key} data-testid="breakdown-part" data-part={p.key}>
          <span className="font-semibold text-zinc-200">
            {p.label} {p.value}
          </span>{" "}
          <span className="text-zinc-300">— {p.explain}</span>
        </li>
      ))}
    </ul>
  );
}
