"use client";

import { useCallback, useEffect, useState } from "react";
import { Button } from "@/components/ui/button";

type Row = {
  id: string;
  label: string;
  state: "live" | "revoked" | "expired";
  consentedAt: string | null;
  completedAt: string | null;
  completionCode: string | null;
  expiresAt: string | null;
};

/** The owner's invites of a study: make links (shown once), list participants, revoke them. */
export function InvitesPanel({ studyId, closed }: { studyId: string; closed: boolean }) {
  const [rows, setRows] = useState<Row[]>([]);
  const [made, setMade] = useState<{ participant: string; url: string }[]>([]);
  const [count, setCount] = useState("1");
  const [expires, setExpires] = useState("7d");
  const [error, setError] = useState<string | null>(null);
  const api = `/api/studies/${encodeURIComponent(studyId)}`;

  const load = useCallback(async () => {
    const r = await fetch(`${api}/invites`);
    const j = (await r.json()) as { participants?: Row[]; error?: { message: string } };
    if (j.error) setError(j.error.message);
    else setRows(j.participants ?? []);
  }, [api]);
  useEffect(() => void load(), [load]);

  const make = async () => {
    setError(null);
    const r = await fetch(`${api}/invites`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ count: Number(count), expires: expires.trim() || undefined }),
    });
    const j = (await r.json()) as { invites?: { participant: string; url: string }[]; error?: { message: string; where?: string } };
    if (j.error) return setError(`${j.error.where ? `${j.error.where}: ` : ""}${j.error.message}`);
    // The participants' list first, then the links: whoever reads a link finds its row already listed.
    await load();
    setMade(j.invites ?? []);
  };
  const revoke = async (id: string) => {
    const r = await fetch(`${api}/participants/${encodeURIComponent(id)}`, { method: "DELETE" });
    if (!r.ok) setError(((await r.json()) as { error?: { message: string } }).error?.message ?? `HTTP ${r.status}`);
    await load();
  };

  return (
    <section aria-labelledby="invites-h" className="space-y-2 rounded border border-zinc-800 p-3" data-testid="invites">
      <h2 id="invites-h" className="font-semibold">
        Participants and invites
      </h2>
      {!closed && (
        <div className="flex flex-wrap items-end gap-2 text-xs">
          <label className="flex flex-col gap-1">
            Invites
            <input
              type="number"
              min={1}
              max={500}
              value={count}
              onChange={(e) => setCount(e.target.value)}
              className="w-20 rounded border border-zinc-700 bg-zinc-900 px-2 py-1"
              data-testid="invite-count"
            />
          </label>
          <label className="flex flex-col gap-1">
            Expire after (e.g. 7d, 12h; empty: never)
            <input
              value={expires}
              onChange={(e) => setExpires(e.target.value)}
              className="w-28 rounded border border-zinc-700 bg-zinc-900 px-2 py-1"
              data-testid="invite-expires"
            />
          </label>
          <Button variant="primary" onClick={make} data-testid="make-invites">
            Make invite links
          </Button>
        </div>
      )}
      {error && (
        <p className="text-xs text-red-300" role="alert">
          {error}
        </p>
      )}
      {made.length > 0 && (
        <div className="rounded bg-zinc-900 p-2 text-xs" data-testid="new-invites">
          <p className="mb-1 text-amber-200">Copy these links now: each is shown only once.</p>
          <ul>
            {made.map((m) => (
              <li key={m.participant} className="font-mono" data-testid="invite-url" data-participant={m.participant}>
                {m.participant} {m.url}
              </li>
            ))}
          </ul>
        </div>
      )}
      {rows.length === 0 ? (
        <p className="text-xs text-zinc-400">No participant has been invited yet.</p>
      ) : (
        <table className="w-full text-left text-xs" data-testid="participants">
          <thead className="text-zinc-400">
            <tr>
              <th className="py-1 pr-3 font-medium">Participant</th>
              <th className="pr-3 font-medium">Invite</th>
              <th className="pr-3 font-medium">Consent</th>
              <th className="pr-3 font-medium">Completion code</th>
              <th className="font-medium">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((p) => (
              <tr key={p.id} className="border-t border-zinc-800" data-testid="participant-row" data-participant={p.label}>
                <td className="py-1 pr-3 font-mono">{p.label}</td>
                <td className="pr-3" data-testid="participant-state">
                  {p.state}
                  {p.expiresAt && p.state === "live" ? ` (until ${new Date(p.expiresAt).toLocaleDateString()})` : ""}
                </td>
                <td className="pr-3">{p.consentedAt ? "given" : "–"}</td>
                <td className="pr-3 font-mono" data-testid="participant-code">
                  {p.completionCode ?? "–"}
                </td>
                <td>
                  {p.state === "live" && (
                    <Button variant="danger" onClick={() => revoke(p.id)} data-testid="revoke" aria-label={`revoke ${p.label}`}>
                      Revoke
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
