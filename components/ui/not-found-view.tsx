"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useState } from "react";

interface Missing {
  heading: string;
  detail: string;
  links: { href: string; label: string }[];
}

const ENVS = ["bash", "sql", "python", "ctf"];

function seg(s: string | undefined): string {
  if (!s) return "";
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * What a path names that was not found, in words, with the ways back. notFound() carries no
 * arguments, so the one not-found page reads the address instead: the same parse the routes do.
 */
export function describeMissing(path: string, search = ""): Missing {
  const parts = path.split("?")[0].split("/").filter(Boolean);
  const [top, a, b] = parts;
  const home = { href: "/", label: "Home" };
  if (top === "play" && a === "study") {
    return { heading: "Study not found", detail: `There is no study with the id “${seg(b)}”.`, links: [{ href: "/play/studies", label: "All studies" }, home] };
  }
  if ((top === "play" || top === "tasks") && a) {
    const env = seg(a);
    if (!ENVS.includes(env)) {
      return {
        heading: "Environment not found",
        detail: `“${env}” is not an environment: there are bash, sql, python and ctf.`,
        links: [
          { href: "/tasks", label: "All datasets" },
          { href: "/play", label: "Playground" },
        ],
      };
    }
    const wanted = new URLSearchParams(search).get("dataset");
    if (!b)
      return {
        heading: "Dataset not found",
        detail: wanted ? `There is no ${env} dataset “${wanted}” installed.` : `That ${env} dataset is not installed.`,
        links: [
          { href: `/tasks/${env}`, label: `The ${env} datasets` },
          { href: "/tasks", label: "All datasets" },
        ],
      };
    const ref = seg(b);
    const colon = ref.indexOf(":");
    const dataset = colon > 0 ? ref.slice(0, colon) : "";
    const id = colon > 0 ? ref.slice(colon + 1) : ref;
    return {
      heading: "Task not found",
      detail: dataset
        ? `There is no ${env} task “${id}” in dataset “${dataset}” (or no dataset of that name is installed).`
        : `No ${env} dataset has a task “${id}”.`,
      links: [
        ...(dataset ? [{ href: `/tasks/${env}?dataset=${encodeURIComponent(dataset)}`, label: `Tasks of ${dataset}` }] : []),
        { href: `/play?env=${env}`, label: `Pick a ${env} task` },
        { href: "/tasks", label: "All datasets" },
      ],
    };
  }
  if (top === "episodes" && a && a !== "stats") {
    return {
      heading: "Episode not found",
      detail: `There is no episode with the id “${seg(a)}” in the store.`,
      links: [{ href: "/episodes", label: "All episodes" }, home],
    };
  }
  return {
    heading: "Page not found",
    detail: `Nothing lives at ${path}.`,
    links: [{ href: "/play", label: "Playground" }, { href: "/episodes", label: "Episodes" }, home],
  };
}

/** The themed 404: names what was not found and links back. */
export function NotFoundView() {
  const path = usePathname() ?? "/";
  // The query names a dataset (/tasks/sql?dataset=x); read after mount, as a 404 has no search params to hand.
  const [search, setSearch] = useState("");
  useEffect(() => setSearch(window.location.search), []);
  const m = describeMissing(path, search);
  return (
    <div className="mx-auto mt-16 max-w-xl rounded-lg border border-zinc-800 bg-zinc-900/60 p-6" data-testid="not-found">
      <p className="font-mono text-xs text-zinc-400">404</p>
      <h1 className="mt-1 text-xl font-semibold text-zinc-50">{m.heading}</h1>
      <p className="mt-2 text-sm text-zinc-200" data-testid="not-found-detail">
        {m.detail}
      </p>
      <ul className="mt-4 flex flex-wrap gap-3 text-sm">
        {m.links.map((l) => (
          <li key={l.href}>
            <Link href={l.href} className="text-emerald-400 underline-offset-2 hover:underline">
              {l.label}
            </Link>
          </li>
        ))}
      </ul>
    </div>
  );
}
