import "server-only";
import type { z } from "zod";
import { BadInputError } from "@/lib/errors";

/**
 * Reads a request's JSON body and validates it with `schema` (handlers wrap their body in `respond`, lib/viewer/http.ts).
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
