"use client";

import { useEffect, useState } from "react";

const KEY = "icstudio.author";

/** The name annotations are signed with, kept in localStorage. */
export function useAuthor(): [string, (name: string) => void] {
  const [author, setAuthor] = useState("anonymous");
  useEffect(() => {
    const saved = window.localStorage.getItem(KEY);
    if (saved) setAuthor(saved);
  }, []);
  return [
    author,
    (name: string) => {
      setAuthor(name);
      window.localStorage.setItem(KEY, name);
    },
  ];
}

/** POST/PATCH/DELETE JSON and return the body, throwing the server's error message. */
export async function sendJson<T>(url: string, method: string, body?: unknown): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? undefined : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 204) return undefined as T;
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(json?.error?.message ? `${json.error.message}${json.error.where ? ` (${json.error.where})` : ""}` : `HTTP ${res.status}`);
  return json as T;
}
