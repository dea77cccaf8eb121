import Link from "next/link";
import type { Metadata } from "next";
import { AgreementText } from "@/components/scans/agreement-text";
import { getScanById } from "@/lib/scan/scans";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Scan · InterCode Studio" };

type Props = { params: Promise<{ id: string }> };

const personText = (p: boolean | null) => (p === null ? "not tagged" : p ? "yes" : "no");

/** /scans/<id>: one scan's answers, episode by episode, beside what people said. */
export default async function ScanPage({ params }: Props) {
  const { id } = await params;
  const scan = await getScanById({ scanId: id });
  if (!scan) {
    return (
      <div className="space-y-2 p-4">
        <h1 className="text-lg font-semibold">Scan</h1>
        <p className="text-sm text-zinc-400">No scan {id}.</p>
        <Link className="text-xs text-sky-400 underline" href="/scans">
          all scans
        </Link>
      </div>
    );
  }
  return (
    <div className="space-y-3 p-4">
      <div className="flex flex-wrap items-baseline gap-3">
        <h1 className="text-lg font-semibold">Scan: {scan.tag}</h1>
        <Link className="text-xs text-sky-400 underline" href="/scans">
          all scans
        </Link>
      </div>
      <p className="text-xs text-zinc-300">
        &ldquo;{scan.question}&rdquo; asked of {scan.model} at {scan.at.replace("T", " ").slice(0, 19)} about {scan.episodes} episodes: yes {scan.yes}, no{" "}
        {scan.no}, errors {scan.errors}.
      </p>
      <p className="text-xs text-zinc-300" data-testid="scan-agreement">
        Agreement: <AgreementText a={scan.agreement} />
      </p>
      {scan.agreement && (
        <p className="text-xs text-zinc-400">
          Both yes {scan.agreement.truePositive}, scanner only {scan.agreement.falsePositive}, people only {scan.agreement.falseNegative}, both no{" "}
          {scan.agreement.trueNegative}.
        </p>
      )}
      <details className="text-xs">
        <summary className="cursor-pointer text-zinc-400">the prompt</summary>
        <pre className="whitespace-pre-wrap text-zinc-300">{scan.prompt}</pre>
      </details>
      <table className="w-full text-xs" data-testid="scan-answers">
        <thead>
          <tr className="text-left text-zinc-400">
            <th scope="col" className="pr-3">
              episode
            </th>
            <th scope="col" className="pr-3">
              scanner
            </th>
            <th scope="col" className="pr-3">
              people
            </th>
            <th scope="col">evidence or error</th>
          </tr>
        </thead>
        <tbody>
          {scan.answers.map((a) => (
            <tr key={a.episodeId} data-testid="scan-answer" data-answer={a.answer} data-person={personText(a.person)}>
              <td className="pr-3">
                <Link className="font-mono text-sky-400 underline" href={`/episodes/${a.episodeId}`}>
                  {a.episodeId.slice(0, 8)}
                </Link>
              </td>
              <td className={`pr-3 ${a.answer === "error" ? "text-red-400" : ""}`}>{a.answer}</td>
              <td className="pr-3">{personText(a.person)}</td>
              <td>{a.text ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
