/** Cookie names shared by the server (lib/http/sessions.ts) and the page (components/ui/logout-button.tsx). */

/** The httpOnly cookie that carries a session's secret. */
export const SESSION_COOKIE = "ic_session";

/** A marker cookie (no secret, readable by the page) that shows the "Log out" button. */
export const SIGNED_IN_COOKIE = "ic_signed_in";
