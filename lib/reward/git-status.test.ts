import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseGitStatus } from "./git-status";

describe("parseGitStatus", () => {
  it("reads the usual line shapes", () => {
    const text = [
      "?? new.txt",
      " M changed.py",
      "D  gone.sh",
      "R  old name -> new name",
      "?? dir1/sub/",
      '"?? x"',
      "## main",
      "",
      "MM both",
      'A  "with \\"quote\\".txt"',
      '?? "caf\\303\\251 \\t.txt"',
    ].join("\n");
    expect(parseGitStatus(text)).toEqual([
      { code: "??", path: "new.txt" },
      { code: "M", path: "changed.py" },
      { code: "D", path: "gone.sh" },
      { code: "R", path: "new name", origPath: "old name" },
      { code: "??", path: "dir1/sub/" },
      { code: "MM", path: "both" },
      { code: "A", path: 'with "quote".txt' },
      { code: "??", path: "café \t.txt" },
    ]);
  });

  it("never throws on garbage", () => {
    for (const junk of ["", "\n\n", "??", '?? "unterminated', "xx yy", "R  a -> ", "\u0000\u0001"]) {
      expect(() => parseGitStatus(junk)).not.toThrow();
    }
    expect(parseGitStatus('?? "unterminated')).toEqual([{ code: "??", path: '"unterminated' }]);
  });

  describe("against real git", () => {
    let repo = "";
    const git = (...args: string[]) => execFileSync("git", ["-c", "core.quotepath=on", ...args], { cwd: repo }).toString("utf8");
    beforeAll(() => {
      repo = mkdtempSync(path.join(tmpdir(), "ic-reward-git-"));
      git("init", "-q");
      const files = ["keep.txt", "edit.txt", "remove.txt", "move me.txt", "with space.txt", "naïve.txt", 'quote".txt'];
      for (const f of files) writeFileSync(path.join(repo, f), `${f}\n`);
      git("add", "-A");
      git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init");
      writeFileSync(path.join(repo, "edit.txt"), "changed\n");
      writeFileSync(path.join(repo, "with space.txt"), "changed\n");
      writeFileSync(path.join(repo, "naïve.txt"), "changed\n");
      writeFileSync(path.join(repo, 'quote".txt'), "changed\n");
      rmSync(path.join(repo, "remove.txt"));
      git("mv", "move me.txt", "moved here.txt");
      writeFileSync(path.join(repo, "new file.txt"), "x\n");
      writeFileSync(path.join(repo, "tab\there.txt"), "x\n");
      writeFileSync(path.join(repo, "line\nbreak.txt"), "x\n");
      mkdirSync(path.join(repo, "newdir", "deeper"), { recursive: true });
      writeFileSync(path.join(repo, "newdir", "deeper", "f"), "x\n");
    });
    afterAll(() => rmSync(repo, { recursive: true, force: true }));

    it("agrees with the unambiguous --porcelain -z listing", () => {
      const parsed = parseGitStatus(git("status", "--short"));
      const z = git("status", "--porcelain", "-z").split("\0").filter(Boolean);
      const want: { code: string; path: string; origPath?: string }[] = [];
      for (let i = 0; i < z.length; i++) {
        const xy = z[i].slice(0, 2);
        const entry: { code: string; path: string; origPath?: string } = { code: xy.trim(), path: z[i].slice(3) };
        if (/[RC]/.test(xy)) entry.origPath = z[++i];
        want.push(entry);
      }
      expect(parsed).toEqual(want);
      expect(parsed.map((e) => e.path)).toEqual(
        expect.arrayContaining(["naïve.txt", 'quote".txt', "tab\there.txt", "line\nbreak.txt", "newdir/", "moved here.txt"]),
      );
    });
  });
});
