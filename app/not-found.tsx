import type { Metadata } from "next";
import { NotFoundView } from "@/components/ui/not-found-view";

export const metadata: Metadata = { title: "Not found · InterCode Studio" };

/** Every notFound() and every unknown address lands here (HTTP 404). */
export default function NotFound() {
  return <NotFoundView />;
}
