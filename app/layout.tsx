import type { Metadata } from "next";
import Link from "next/link";
import { headers } from "next/headers";
import { accessFromHeaders } from "@/lib/http/auth";
import { LogoutButton } from "@/components/ui/logout-button";
import { SiteNav } from "@/components/ui/site-nav";
import "./globals.css";

export const metadata: Metadata = {
  title: "InterCode Studio",
  description: "Play, watch and study interactive coding benchmarks.",
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // A participant sees no navigation: nothing past their study is open to them.
  const participant = accessFromHeaders(await headers())?.role === "participant";
  return (
    <html lang="en">
      <body className="min-h-screen">
        <header className="flex h-[41px] items-center gap-6 border-b border-zinc-800 px-4 text-sm">
          {participant ? (
            <span className="font-semibold tracking-tight text-zinc-50">InterCode Studio</span>
          ) : (
            <Link href="/" className="font-semibold tracking-tight text-zinc-50">
              InterCode Studio
            </Link>
          )}
          {!participant && <SiteNav />}
          <LogoutButton />
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}
