import { describe, expect, it } from "vitest";
import { redactSecrets } from "./redact";

describe("redactSecrets (finding 9)", () => {
  it("removes every occurrence of a key, raw and encoded, and leaves short secrets alone", () => {
    const key = "sk-test-1234567890/abc+def";
    const text = `invalid key ${key} (you sent ${encodeURIComponent(key)}); again: ${key}`;
    const r = redactSecrets(text, [key, "abc", undefined]);
    expect(r).not.toContain(key);
    expect(r).not.toContain(encodeURIComponent(key));
    expect(r.match(/\[redacted key\]/g)).toHaveLength(3);
    expect(redactSecrets("abc def", ["abc"])).toBe("abc def");
  });
});
