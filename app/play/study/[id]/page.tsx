import { notFound } from "next/navigation";
import { getStudy } from "@/lib/studies/studies";
import { StudyRunner } from "@/components/play/study-runner";

export const dynamic = "force-dynamic";

/** Sends the annotator to their next task of a study (or shows that they are done). */
export default async function StudyPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const study = await getStudy(decodeURIComponent(id));
  if (!study) notFound();
  return <StudyRunner id={study.id} name={study.name} total={study.config.tasks.length} />;
}
