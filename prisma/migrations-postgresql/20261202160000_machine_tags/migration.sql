-- Machine tags (issue 28): an annotation says who made it. "source" is person (typed or accepted in
-- the replay), detector (a deterministic rule run at import or at episode end) or scanner (a
-- question put to a model); "provenance" is JSON naming the rule and its version, or the scan, its
-- model, prompt and time. Every annotation before this one was a person's. The index lists machine
-- tags by (source, tag) for the failure groups and the scanners' agreement with people.
ALTER TABLE "Annotation" ADD COLUMN "source" TEXT NOT NULL DEFAULT 'person';
ALTER TABLE "Annotation" ADD COLUMN "provenance" TEXT;
CREATE INDEX "Annotation_source_tag_idx" ON "Annotation"("source", "tag");
