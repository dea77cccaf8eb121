import "server-only";
import { NextResponse } from "next/server";
import type { z } from "zod";
import { BadInputError, toHttp } from "@/lib/errors";

/**
 * Runs a route handler body and turns any error into the project's JSON error response
 * (lib/errors.ts `toHttp`: status from the error's code, `{ error: { code, message, where } }`).
 */
export async function jsonRoute(fn: () => Promise<Response> | Response): Promise<Response> {
  try {
    return await fn();
  } catch (err) {
    const { status, body } = toHttp(err);
    return NextResponse.json(body, { status });
  }
}

/**
 * Reads a request's JSON body and validates it with `schema`.
 * @throws BadInputError with `where` "body" when it is not JSON, or "body.<field>" naming the first bad field.
 */
export async function parseJsonBody<S extends z.ZodType>(req: Request, schema: S): Promise<z.infer<S>> {
  let json: unknown;
  try {
    json = await req.json();
  } catch {
    throw new BadInputError("the body is not JSON", "body");
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new BadInputError(issue.message, issue.path.length ? `body.${issue.path.join(".")}` : "body");
  }
  return parsed.data;
}
