"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

/** The header's sections; the first whose prefix matches the path is the current one. */
export const NAV_LINKS: { href: string; label: string; match: (path: string) => boolean }[] = [
  { href: "/play", label: "Play", match: (p) => (p.startsWith("/play") && !p.startsWith("/play/stud")) || p.startsWith("/tasks") },
  { href: "/episodes", label: "Episodes", match: (p) => p.startsWith("/episodes") && !p.startsWith("/episodes/stats") },
  { href: "/play/studies", label: "Studies", match: (p) => p.startsWith("/play/stud") },
  { href: "/episodes/stats", label: "Stats", match: (p) => p.startsWith("/episodes/stats") },
  { href: "/compare", label: "Compare", match: (p) => p.startsWith("/compare") },
  { href: "/failures", label: "Failures", match: (p) => p.startsWith("/failures") },
  { href: "/models", label: "Models", match: (p) => p.startsWith("/models") },
  { href: "/runs", label: "Runs", match: (p) => p.startsWith("/runs") },
  { href: "/scans", label: "Scanners", match: (p) => p.startsWith("/scans") },
];

/** The site navigation, with the current section marked (aria-current="page"). */
export function SiteNav() {
  const path = usePathname() ?? "/";
  return (
    <nav aria-label="main" className="flex gap-1" data-testid="site-nav">
      {NAV_LINKS.map((l) => {
        const current = l.match(path);
        return (
          <Link
            key={l.href}
            href={l.href}
            aria-current={current ? "page" : undefined}
            className={`rounded px-2 py-1 ${current ? "bg-zinc-800 text-zinc-50" : "text-zinc-300 hover:bg-zinc-900 hover:text-zinc-50"}`}
          >
            {l.label}
          </Link>
        );
      })}
    </nav>
  );
}
