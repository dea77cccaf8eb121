import { describe, expect, it } from "vitest";
import { ctfReward } from "./ctf";

describe("ctfReward", () => {
  it("matches ignoring case and surrounding whitespace", () => {
    expect(ctfReward({ submitted: "picoCTF{Abc_123}", flag: "picoCTF{Abc_123}" }).reward).toBe(1);
    expect(ctfReward({ submitted: "  PICOctf{abc_123}\n", flag: "picoCTF{Abc_123}" })).toMatchObject({ reward: 1, breakdown: { match: true } });
  });

  it("does not match a different or partial flag, or nothing", () => {
    expect(ctfReward({ submitted: "picoCTF{abc_12}", flag: "picoCTF{abc_123}" }).reward).toBe(0);
    expect(ctfReward({ submitted: "abc_123", flag: "picoCTF{abc_123}" }).reward).toBe(0);
    expect(ctfReward({ submitted: "", flag: "" }).reward).toBe(0);
    expect(ctfReward({ submitted: null, flag: "x" })).toMatchObject({ reward: 0, breakdown: { submitted: "", match: false } });
  });
});
