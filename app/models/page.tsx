import type { Metadata } from "next";
import { ModelsView } from "@/components/models/models-view";
import { listModels, modelsConfigPath, publicModelView } from "@/lib/agent/models";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Models · InterCode Studio" };

/** The models the agent can use: configured in the models file and added here, with their connection tests. Keys never reach this page. */
export default function ModelsPage() {
  return <ModelsView initial={listModels().map(publicModelView)} configFile={modelsConfigPath()} />;
}
