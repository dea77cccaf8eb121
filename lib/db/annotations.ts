import "server-only";
import { BadInputError, NotFoundError } from "@/lib/errors";
import { withPrisma } from "./client";
import type { Annotation, PrismaClient } from "./generated/client";
import { withWriteLock } from "./lock";

export type { Annotation } from "./generated/client";

type Tx = Omit<PrismaClient, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

/** Rewrites Episode.tags (the accepted tag names, for the list) from the episode's annotations. */
async function refreshEpisodeTags(tx: Tx, episodeId: string): Promise<void> {
  const rows = await tx.annotation.findMany({ where: { episodeId, kind: "tag", status: "accepted" }, select: { tag: true } });
  const tags = [...new Set(rows.map((r) => r.tag).filter((t): t is string => Boolean(t)))].sort();
  await tx.episode.update({ where: { id: episodeId }, data: { tags: tags.join(" ") } });
}

const TAG_RE = /^[a-z0-9][a-z0-9_.:-]{0,63}$/;

/** Adds a tag or a note to an episode or one of its turns. */
export async function createAnnotation(input: {
  episodeId: string;
  turnIndex?: number | null;
  kind: "tag" | "note";
  tag?: string | null;
  text?: string | null;
  author: string;
  status?: "suggested" | "accepted" | "rejected";
}): Promise<Annotation> {
  if (input.kind === "tag" && !(input.tag && TAG_RE.test(input.tag)))
    throw new BadInputError("a tag is 1-64 characters of a-z, 0-9, _ . : - (starting with a letter or digit)", "tag");
  if (input.kind === "note" && !input.text?.trim()) throw new BadInputError("a note needs text", "text");
  return withWriteLock(() =>
    withPrisma((prisma) =>
      prisma.$transaction(async (tx) => {
        const ep = await tx.episode.findUnique({ where: { id: input.episodeId }, select: { id: true } });
        if (!ep) throw new NotFoundError(`episode ${input.episodeId}`);
        const created = await tx.annotation.create({
          data: {
            episodeId: input.episodeId,
            turnIndex: input.turnIndex ?? null,
            kind: input.kind,
            tag: input.tag ?? null,
            text: input.text ?? null,
            author: input.author,
            status: input.status ?? "accepted",
          },
        });
        await refreshEpisodeTags(tx, input.episodeId);
        return created;
      }),
    ),
  );
}

/** Accepts or rejects a (suggested) annotation. */
export async function updateAnnotationStatus({ id, status }: { id: string; status: "suggested" | "accepted" | "rejected" }): Promise<Annotation> {
  return withWriteLock(() =>
    withPrisma((prisma) =>
      prisma.$transaction(async (tx) => {
        const a = await tx.annotation.findUnique({ where: { id } });
        if (!a) throw new NotFoundError(`annotation ${id}`);
        const updated = await tx.annotation.update({ where: { id }, data: { status } });
        await refreshEpisodeTags(tx, a.episodeId);
        return updated;
      }),
    ),
  );
}

export async function deleteAnnotationById({ id }: { id: string }): Promise<void> {
  await withWriteLock(() =>
    withPrisma((prisma) =>
      prisma.$transaction(async (tx) => {
        const a = await tx.annotation.findUnique({ where: { id } });
        if (!a) throw new NotFoundError(`annotation ${id}`);
        await tx.annotation.delete({ where: { id } });
        await refreshEpisodeTags(tx, a.episodeId);
      }),
    ),
  );
}

/** The most used accepted tags, for the failure-analysis view and the tag picker. */
export async function countTags({ limit = 50 }: { limit?: number } = {}): Promise<Array<{ tag: string; count: number }>> {
  return withPrisma(async (prisma) => {
    const rows = await prisma.annotation.groupBy({
      by: ["tag"],
      where: { kind: "tag", status: "accepted", tag: { not: null } },
      _count: { _all: true },
      orderBy: { _count: { tag: "desc" } },
      take: limit,
    });
    return rows.map((r) => ({ tag: r.tag as string, count: r._count._all }));
  });
}
