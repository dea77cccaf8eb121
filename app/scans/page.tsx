import Link from "next/link";
import type { Metadata } from "next";
import { AutoRefresh } from "@/components/runs/auto-refresh";
import { AgreementText } from "@/components/scans/agreement-text";
import { NewScanForm } from "@/components/scans/new-scan-form";
import { listModels } from "@/lib/agent/models";
import { SCAN_MAX_EPISODES } from "@/lib/scan/scan-options";
import { listScanJobs } from "@/lib/scan/scan-jobs";
import { listScans } from "@/lib/scan/scans";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Scanners · InterCode Studio" };

/** /scans: start a scanner, follow the running ones, and every stored scan with its agreement with people. */
export default async function ScansPage() {
  const [scans, jobs] = [await listScans(), listScanJobs()];
  const running = jobs.filter((j) => !j.finished || j.error);
  let models: { id: string; available: boolean; reason: string | null }[] = [];
  let modelsError: string | null = null;
  try {
    models = listModels().map((m) => ({ id: m.id, available: m.available, reason: m.reason ?? null }));
  } catch (err) {
    modelsError = (err as Error).message;
  }
  return (
    <div className="space-y-4 p-4">
      <AutoRefresh active={jobs.some((j) => !j.finished)} />
      <div className="space-y-1">
        <h1 className="text-lg font-semibold">Scanners</h1>
        <p className="max-w-3xl text-xs text-zinc-400">
          A scanner puts a yes/no question to a model about each episode a filter matches and stores the answers as machine tags, with the model, the prompt and
          the time. Trust a scanner only as far as it agrees with people: where people tagged the same episodes, each scan shows precision (of its yeses, the
          share people agree with), recall (of the people&apos;s tags, the share it found) and Cohen&apos;s kappa (agreement beyond chance: 1 is perfect, 0 is
          chance). The same from the command line: <code>icstudio scan</code>.
        </p>
      </div>
      {modelsError && <p className="text-xs text-red-400">{modelsError}</p>}
      <NewScanForm models={models} maxEpisodes={SCAN_MAX_EPISODES} />
      {running.length > 0 && (
        <section aria-labelledby="scans-running" className="space-y-1">
          <h2 id="scans-running" className="text-sm font-semibold text-zinc-300">
            Running here
          </h2>
          <ul className="text-xs" data-testid="scan-jobs">
            {running.map((j) => (
              <li key={j.scanId} data-testid="scan-job" data-done={j.done} data-total={j.total}>
                {j.tag} · {j.model}: {j.done} / {j.total} (yes {j.yes}, no {j.no}, errors {j.errors})
                {j.error ? <span className="text-red-400"> stopped: {j.error}</span> : null}
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-labelledby="scans-stored" className="space-y-1">
        <h2 id="scans-stored" className="text-sm font-semibold text-zinc-300">
          Scans
        </h2>
        {scans.length === 0 ? (
          <p className="text-xs text-zinc-400">No scans yet.</p>
        ) : (
          <table className="w-full text-xs" data-testid="scans-list">
            <thead>
              <tr className="text-left text-zinc-400">
                <th scope="col" className="pr-3">
                  tag
                </th>
                <th scope="col" className="pr-3">
                  question
                </th>
                <th scope="col" className="pr-3">
                  model
                </th>
                <th scope="col" className="pr-3">
                  episodes
                </th>
                <th scope="col" className="pr-3">
                  yes · no · errors
                </th>
                <th scope="col" className="pr-3">
                  agreement with people
                </th>
                <th scope="col">when</th>
              </tr>
            </thead>
            <tbody>
              {scans.map((s) => (
                <tr key={s.scanId} data-testid="scan-row" data-scan={s.scanId} data-kappa={s.agreement?.kappa ?? ""}>
                  <td className="pr-3">
                    <Link className="font-mono text-sky-400 underline" href={`/scans/${s.scanId}`}>
                      {s.tag}
                    </Link>
                  </td>
                  <td className="pr-3">{s.question}</td>
                  <td className="pr-3">{s.model}</td>
                  <td className="pr-3">{s.episodes}</td>
                  <td className="pr-3">
                    {s.yes} · {s.no} · {s.errors}
                  </td>
                  <td className="pr-3">
                    <AgreementText a={s.agreement} />
                  </td>
                  <td>{s.at.replace("T", " ").slice(0, 19)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
