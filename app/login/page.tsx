export const metadata = { title: "Log in · InterCode Studio" };

/**
 * The token form. It posts to /login, which the custom server answers itself (sets an httpOnly
 * session cookie and redirects back), so no route can be reached without the token.
 */
export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const next = typeof sp.next === "string" && sp.next.startsWith("/") && !sp.next.startsWith("//") ? sp.next : "/";
  const failed = sp.error !== undefined;
  return (
    <form method="post" action="/login" className="mx-auto mt-20 max-w-sm space-y-3 rounded border border-zinc-800 p-5" aria-label="log in">
      <h1 className="text-lg font-semibold">Log in</h1>
      <p className="text-sm text-zinc-400">This server needs its access token (IC_TOKEN).</p>
      <input type="hidden" name="next" value={next} />
      <input
        type="password"
        name="token"
        autoFocus
        required
        autoComplete="current-password"
        aria-label="token"
        data-testid="token"
        className="w-full rounded border border-zinc-700 bg-zinc-900 px-2 py-1 font-mono"
      />
      {failed && (
        <p className="text-sm text-red-400" role="alert">
          That token is not right.
        </p>
      )}
      <button type="submit" className="rounded bg-emerald-700 px-3 py-1 text-sm font-medium text-white hover:bg-emerald-600" data-testid="login">
        Log in
      </button>
    </form>
  );
}
