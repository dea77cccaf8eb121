import type { Metadata } from "next";
import { config } from "@/lib/config";
import { listLiveResources } from "@/lib/sandbox/reaper";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Status · InterCode Studio" };

const age = (ms: number) =>
  ms < 60_000 ? `${Math.round(ms / 1000)} s` : ms < 3_600_000 ? `${Math.round(ms / 60_000)} min` : `${(ms / 3_600_000).toFixed(1)} h`;

/** The server's live helper processes and warm sandboxes: owner, age, idle time and the deadline past which the reaper ends each (the owner's page). */
export default function StatusPage() {
  const live = listLiveResources();
  const c = config();
  return (
    <main className="space-y-3 p-4 text-sm">
      <h1 className="text-lg font-semibold">Status</h1>
      <p className="text-xs text-zinc-400">
        Helper processes and warm sandboxes unused for {age(c.helperIdleMs)} are ended (IC_HELPER_IDLE_MS); an episode&apos;s own sandbox closes after{" "}
        {age(c.idleMs)} idle (IC_IDLE_MS).
        <code>icstudio doctor</code> lists every Studio process and container on the machine, orphans included.
      </p>
      <h2 className="font-semibold">Live helpers and sandboxes ({live.length})</h2>
      {live.length === 0 ? (
        <p data-testid="no-resources" className="text-xs text-zinc-400">
          none running
        </p>
      ) : (
        <table className="text-xs" data-testid="resources">
          <thead>
            <tr className="text-left text-zinc-400">
              <th className="pr-4">kind</th>
              <th className="pr-4">owner</th>
              <th className="pr-4">process</th>
              <th className="pr-4">age</th>
              <th className="pr-4">idle</th>
              <th className="pr-4">deadline</th>
              <th>state</th>
            </tr>
          </thead>
          <tbody>
            {live.map((r) => (
              <tr key={r.id}>
                <td className="pr-4">{r.kind}</td>
                <td className="pr-4">{r.owner}</td>
                <td className="pr-4">{r.pid ?? "–"}</td>
                <td className="pr-4">{age(r.ageMs)}</td>
                <td className="pr-4">{age(r.idleForMs)}</td>
                <td className="pr-4">{age(r.idleMs)}</td>
                <td>{r.busy ? "busy" : "idle"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
