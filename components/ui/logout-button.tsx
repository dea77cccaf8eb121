"use client";

import { useEffect, useState } from "react";
import { SIGNED_IN_COOKIE } from "@/lib/http/cookie-names";

/** "Log out" (POST /logout, which ends the session on the server), shown while a session is open. */
export function LogoutButton() {
  const [signedIn, setSignedIn] = useState(false);
  useEffect(() => setSignedIn(document.cookie.split(/;\s*/).some((c) => c === `${SIGNED_IN_COOKIE}=1`)), []);
  if (!signedIn) return null;
  return (
    <form method="post" action="/logout" className="ml-auto">
      <button type="submit" className="rounded px-2 py-1 text-zinc-300 hover:bg-zinc-900 hover:text-zinc-50" data-testid="logout">
        Log out
      </button>
    </form>
  );
}
