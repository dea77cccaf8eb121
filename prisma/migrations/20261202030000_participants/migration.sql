-- Study participants and the study seal (lib/studies/participants.ts, lib/studies/study-seal.ts):
-- a study is sealed until closedAt; each participant holds an invite (its secret stored as a
-- SHA-256), a fixed annotator label and task order; SealReveal logs the owner's looks behind a seal.
ALTER TABLE "Study" ADD COLUMN "closedAt" DATETIME;

CREATE TABLE "Participant" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "studyId" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "inviteHash" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "taskOrder" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME,
    "revokedAt" DATETIME,
    "consentedAt" DATETIME,
    "completedAt" DATETIME,
    "completionCode" TEXT,
    CONSTRAINT "Participant_studyId_fkey" FOREIGN KEY ("studyId") REFERENCES "Study" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "Participant_inviteHash_key" ON "Participant"("inviteHash");
CREATE UNIQUE INDEX "Participant_studyId_label_key" ON "Participant"("studyId", "label");
CREATE INDEX "Participant_studyId_idx" ON "Participant"("studyId");

CREATE TABLE "SealReveal" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "studyId" TEXT NOT NULL,
    "what" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "SealReveal_studyId_fkey" FOREIGN KEY ("studyId") REFERENCES "Study" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "SealReveal_studyId_idx" ON "SealReveal"("studyId");

CREATE TABLE "StudyTaskClock" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "studyId" TEXT NOT NULL,
    "annotator" TEXT NOT NULL,
    "taskId" TEXT NOT NULL,
    "activeMs" INTEGER NOT NULL DEFAULT 0,
    "firstAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX "StudyTaskClock_studyId_annotator_taskId_key" ON "StudyTaskClock"("studyId", "annotator", "taskId");
