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

/**
 * Validates `value` with `schema`. `where` names the input ("body", "path", "query parameter",
 * "form field"); the error's `where` is that followed by the first bad field's path, e.g.
 * "body selection.count".
 * @throws BadInputError naming the first bad field and what was wrong with it.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: string): z.infer<S> {
  const r = schema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new BadInputError(issue.message, `${where}${issue.path.length ? ` ${issue.path.join(".")}` : ""}`);
  }
  return r.data;
}

/**
 * Reads a request's JSON body and validates it with `schema` (the one way routes read a body).
 * @throws BadInputError with `where` "body" when the body is not JSON, or "body <field path>"
 * (see `parseInput`) naming the first bad field.
 */
export async function parseJsonBody<S extends z.ZodType>(req: Request, schema: S): Promise<z.infer<S>> {
  let json: unknown;
  try {
    json = await req.json();
  } catch {
    throw new BadInputError("not valid JSON", "body");
  }
  return parseInput(schema, json, "body");
}
