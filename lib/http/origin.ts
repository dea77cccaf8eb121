import "server-only";

/**
 * The origin a browser used to reach this server, for links the server hands out (invites):
 * the checked Host header (studio-server.ts refuses any other), https when the request came over
 * TLS as the server judged it (it stamps x-ic-secure), else http.
 */
export function requestOrigin(headers: Pick<Headers, "get">): string {
  const host = headers.get("host") ?? "localhost";
  return `${headers.get("x-ic-secure") === "1" ? "https" : "http"}://${host}`;
}
