import Link from "next/link";
import { EPISODE_FLAGS, isEpisodeFlag } from "@/lib/trajectories/flags";

/** An imported episode's flags (what is odd about it as logged), each a chip that says what it means. */
export function FlagChips({ flags, link = false }: { flags: string[]; link?: boolean }) {
  return flags.map((f) => {
    const props = {
      className: "mr-1 rounded bg-amber-950 px-1 text-amber-300",
      title: isEpisodeFlag(f) ? EPISODE_FLAGS[f] : undefined,
      "data-testid": "episode-flag",
    };
    return link ? (
      <Link key={f} href={`/episodes?flag=${encodeURIComponent(f)}`} {...props}>
        {f}
      </Link>
    ) : (
      <span key={f} {...props}>
        {f}
      </span>
    );
  });
}
