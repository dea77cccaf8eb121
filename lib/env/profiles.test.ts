import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { config } from "@/lib/config";
import { PROFILE_DOC_BEGIN, PROFILE_DOC_END, PROFILE_TABLE, profileValue, renderProfileTable } from "./profiles";

const DOC = path.resolve(__dirname, "../../docs/profiles.md");

describe("profile table", () => {
  it("docs/profiles.md holds the table as lib/env/profiles.ts declares it", () => {
    const text = fs.readFileSync(DOC, "utf8");
    const a = text.indexOf(PROFILE_DOC_BEGIN);
    const b = text.indexOf(PROFILE_DOC_END);
    expect(a, "docs/profiles.md lost its table markers").toBeGreaterThanOrEqual(0);
    expect(b).toBeGreaterThan(a);
    const expected = `${PROFILE_DOC_BEGIN}\n${renderProfileTable()}${PROFILE_DOC_END}`;
    if (config().updateDocs) fs.writeFileSync(DOC, text.slice(0, a) + expected + text.slice(b + PROFILE_DOC_END.length));
    else expect(text.slice(a, b + PROFILE_DOC_END.length), "run IC_UPDATE_DOCS=1 npx vitest run lib/env/profiles.test.ts").toBe(expected);
  });

  it("every row is a difference (but the loop's shared rows), and reads per profile", () => {
    for (const [key, r] of Object.entries(PROFILE_TABLE) as [string, { intercode: unknown; studio: unknown; shared?: true }][]) {
      if (r.shared) expect(r.intercode, key).toEqual(r.studio);
      else expect(r.intercode, key).not.toEqual(r.studio);
    }
    expect(profileValue("intercode", "python.after-score")).toBe("reset-to-gold");
    expect(profileValue("studio", "python.after-score")).toBe("unchanged");
  });
});
