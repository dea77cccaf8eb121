import { describe, expect, it } from "vitest";
import { z } from "zod";
import { BadInputError } from "@/lib/errors";
import { parseInput, parseJsonBody, respond } from "./respond";

const schema = z.object({ name: z.string().min(1), selection: z.object({ count: z.number().int().min(1) }) });
const post = (body: string) => new Request("http://studio.test/api/x", { method: "POST", headers: { "content-type": "application/json" }, body });

/** The BadInputError a promise rejects with (fails the test if it resolves or throws anything else). */
async function badInput(p: Promise<unknown>): Promise<BadInputError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BadInputError);
  return err as BadInputError;
}

describe("parseJsonBody", () => {
  it("returns the validated body", async () => {
    expect(await parseJsonBody(post('{"name":"s","selection":{"count":2},"extra":1}'), schema)).toEqual({ name: "s", selection: { count: 2 } });
  });

  it("names the body when it is not JSON (malformed, empty)", async () => {
    for (const body of ['{"name": ', ""]) {
      const err = await badInput(parseJsonBody(post(body), schema));
      expect(err.where).toBe("body");
      expect(err.message).toBe("body: not valid JSON");
    }
  });

  it("names the first bad field by its path in the body", async () => {
    const wrongType = await badInput(parseJsonBody(post('{"name":7,"selection":{"count":2}}'), schema));
    expect(wrongType.where).toBe("body name");
    expect(wrongType.message).toMatch(/^body name: .*expected string/);
    const nested = await badInput(parseJsonBody(post('{"name":"s","selection":{"count":0}}'), schema));
    expect(nested.where).toBe("body selection.count");
    const notObject = await badInput(parseJsonBody(post("[1,2]"), schema));
    expect(notObject.where).toBe("body");
    expect(notObject.message).toMatch(/expected object/);
  });
});

describe("parseInput", () => {
  it("uses the same wording for other inputs (query parameters, path)", () => {
    expect(() => parseInput(z.object({ limit: z.coerce.number().max(5) }), { limit: "9" }, "query parameter")).toThrow(/^query parameter limit: /);
  });
});

describe("respond", () => {
  it("turns a bad body into a 400 whose JSON error names the field", async () => {
    const res = await respond(async () => Response.json(await parseJsonBody(post('{"name":"","selection":{"count":1}}'), schema)));
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("bad_input");
    expect(error.message).toMatch(/^body name: /);
  });
});
