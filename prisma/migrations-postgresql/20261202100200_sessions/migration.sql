-- Revocable sessions (lib/http/sessions.ts), as prisma/migrations/20261202020000_sessions on SQLite.
CREATE TABLE "Session" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "role" TEXT NOT NULL,
    "participantId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "revokedAt" TIMESTAMP(3)
);
CREATE INDEX "Session_participantId_idx" ON "Session"("participantId");
