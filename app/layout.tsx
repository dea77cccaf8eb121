import type { Metadata } from "next";
import Link from "next/link";
import "./globals.css";

export const metadata: Metadata = {
  title: "InterCode Studio",
  description: "Play, watch and study interactive coding benchmarks.",
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen">
        <header className="flex items-center gap-6 border-b border-zinc-800 px-4 py-2 text-sm">
          <Link href="/" className="font-semibold tracking-tight">InterCode Studio</Link>
          <nav className="flex gap-4 text-zinc-400">
            <Link href="/play" className="hover:text-zinc-100">Play</Link>
            <Link href="/episodes" className="hover:text-zinc-100">Episodes</Link>
            <Link href="/models" className="hover:text-zinc-100">Models</Link>
            <Link href="/runs" className="hover:text-zinc-100">Runs</Link>
          </nav>
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}
