import type { Metadata } from "next";
import Link from "next/link";
import { LogoutButton } from "@/components/ui/logout-button";
import { SiteNav } from "@/components/ui/site-nav";
import "./globals.css";

export const metadata: Metadata = {
  title: "InterCode Studio",
  description: "Play, watch and study interactive coding benchmarks.",
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen">
        <header className="flex h-[41px] items-center gap-6 border-b border-zinc-800 px-4 text-sm">
          <Link href="/" className="font-semibold tracking-tight text-zinc-50">InterCode Studio</Link>
          <SiteNav />
          <LogoutButton />
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}
