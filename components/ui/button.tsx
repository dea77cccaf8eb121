"use client";

import type { ButtonHTMLAttributes } from "react";

/** A small dense button; `primary` for the one main action of a view. */
export function Button({
  variant = "default",
  className = "",
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: "default" | "primary" | "danger" }) {
  const look =
    variant === "primary"
      ? "bg-emerald-700 text-white hover:bg-emerald-600"
      : variant === "danger"
        ? "border border-red-800 text-red-300 hover:bg-red-950"
        : "border border-zinc-700 text-zinc-200 hover:bg-zinc-800";
  return (
    <button
      type="button"
      {...rest}
      className={`rounded px-2 py-0.5 text-xs font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-emerald-500 disabled:cursor-not-allowed disabled:opacity-40 ${look} ${className}`}
    />
  );
}
