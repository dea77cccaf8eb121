import Link from "next/link";

export default function Home() {
  return (
    <div className="mx-auto max-w-3xl p-8">
      <h1 className="text-2xl font-semibold">InterCode Studio</h1>
      <p className="mt-2 text-zinc-400">Work InterCode tasks in a live sandbox, watch models work them, and replay every episode beside the gold solution.</p>
      <div className="mt-6 flex gap-4">
        <Link className="rounded bg-emerald-700 px-4 py-2 font-medium text-white hover:bg-emerald-600" href="/play">
          Open the playground
        </Link>
        <Link className="rounded border border-zinc-700 px-4 py-2 hover:bg-zinc-900" href="/episodes">
          Browse episodes
        </Link>
      </div>
    </div>
  );
}
