-- Revocable sessions (lib/http/sessions.ts): a login creates one, logout revokes it. The id is the
-- SHA-256 of the cookie's secret; role is owner or participant (participantId names the latter).
CREATE TABLE "Session" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "role" TEXT NOT NULL,
    "participantId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL,
    "revokedAt" DATETIME
);
CREATE INDEX "Session_participantId_idx" ON "Session"("participantId");
