import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { getStudy } from "@/lib/studies/studies";
import { principalOf } from "@/lib/http/principal";
import { participantProgress } from "@/lib/studies/participant-flow";
import { StudyRunner } from "@/components/play/study-runner";
import { ParticipantLanding } from "@/components/play/participant-landing";

export const dynamic = "force-dynamic";

/**
 * A study's landing page. A participant (invite link) sees the instructions and consent, then
 * goes to their next task, and gets their completion code at the end; the owner is asked for an
 * annotator name and sent to their next task.
 */
export default async function StudyPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const study = await getStudy(decodeURIComponent(id));
  if (!study) notFound();
  const who = await principalOf(await headers());
  if (who.role === "participant") {
    if (who.scope.studyId !== study.id) notFound();
    return <ParticipantLanding progress={await participantProgress(who.scope)} />;
  }
  return <StudyRunner id={study.id} name={study.name} total={study.config.tasks.length} />;
}
