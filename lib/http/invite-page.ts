import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import { INVITE_PATH, redeemInvite } from "@/lib/studies/participants";
import type { FailureLimiter } from "./rate-limit";
import { sessionCookie, startSession } from "./sessions";

/**
 * GET /invite/<secret>: a participant's invite link. A live invite starts a participant session
 * (an HttpOnly, SameSite=Strict cookie, Secure over TLS) and sends them to their study; an
 * unknown secret is a failed credential (rate-limited like a wrong token) and gets 401; a revoked
 * or expired invite, or a closed study, gets 403; each with a page that says what happened.
 */
export async function handleInvite(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  ctx: { limiter: FailureLimiter; address: string; secure: boolean },
): Promise<void> {
  req.resume();
  const secret = url.pathname.slice(INVITE_PATH.length);
  const found = await redeemInvite(secret);
  if (found.kind === "ok") {
    const { secret: cookie } = await startSession({ role: "participant", participantId: found.participant.id });
    res.writeHead(303, {
      location: `/play/study/${encodeURIComponent(found.studyId)}`,
      "set-cookie": sessionCookie(cookie, ctx.secure),
      "cache-control": "no-store",
    });
    res.end();
    return;
  }
  if (found.kind === "unknown") {
    ctx.limiter.fail(ctx.address);
    return page(
      res,
      401,
      "This invite link is not valid",
      "The link is not one this server made: check that it was copied whole, or ask the study's researcher for a new one.",
      "invalid",
    );
  }
  const why =
    found.kind === "revoked"
      ? `The researcher withdrew this invite to the study “${found.studyName}”.`
      : found.kind === "expired"
        ? `This invite to the study “${found.studyName}” has expired.`
        : `The study “${found.studyName}” is closed and takes no more participants.`;
  return page(res, 403, "This invite can no longer be used", `${why} Ask the researcher for a new link if you should still take part.`, found.kind);
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);
}

function page(res: ServerResponse, status: number, title: string, text: string, kind: string): void {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  res.end(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · InterCode Studio</title></head>` +
      `<body style="font-family:sans-serif;background:#09090b;color:#e4e4e7;max-width:40rem;margin:4rem auto"><main>` +
      `<h1>${escapeHtml(title)}</h1><p data-testid="invite-problem" data-kind="${kind}">${escapeHtml(text)}</p></main></body></html>`,
  );
}
