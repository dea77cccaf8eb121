import "server-only";
import { NextResponse } from "next/server";
import type { z } from "zod";
import { BadInputError, toHttp } from "@/lib/errors";

/** Runs a route handler body, turning any error into the project's JSON error response. */
export async function respond(fn: () => Promise<Response> | Response): Promise<Response> {
  try {
    return await fn();
  } catch (err) {
    const { status, body } = toHttp(err);
    return NextResponse.json(body, { status });
  }
}

/** Validates `value` with `schema`, naming the first bad field (`where` prefixes it). */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const r = schema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new BadInputError(issue.message, `${where}${issue.path.length ? ` ${issue.path.join(".")}` : ""}`);
  }
  return r.data;
}

/** Reads a JSON request body, or names it as bad input. */
export async function readJson(req: Request): Promise<unknown> {
  try {
    return await req.json();
  } catch {
    throw new BadInputError("the body must be JSON", "request body");
  }
}
