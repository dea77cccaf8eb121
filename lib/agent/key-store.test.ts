import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { deleteStoredKey, getStoredKey, KEY_FILE_MODE, keyFilePath, listStoredKeyIds, setStoredKey, storeDir } from "./key-store";

const dirs: string[] = [];
const tmpDir = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "ic-keys-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const modeOf = (file: string) => fs.statSync(file).mode & 0o777;

describe("key store", () => {
  it("lives beside the store (IC_DB's folder)", () => {
    const old = process.env.IC_DB;
    process.env.IC_DB = "/srv/studio/data/studio.db";
    try {
      expect(storeDir()).toBe("/srv/studio/data");
    } finally {
      if (old === undefined) delete process.env.IC_DB;
      else process.env.IC_DB = old;
    }
    expect(keyFilePath("/srv/studio/data")).toBe("/srv/studio/data/model-keys.json");
  });

  it("writes keys to a file only its owner can read (0600), even under a permissive umask", () => {
    const dir = tmpDir();
    const old = process.umask(0);
    try {
      setStoredKey("m1", "sk-one", dir);
    } finally {
      process.umask(old);
    }
    expect(modeOf(keyFilePath(dir))).toBe(KEY_FILE_MODE);
    expect(getStoredKey("m1", dir)).toBe("sk-one");
    expect([...listStoredKeyIds(dir)]).toEqual(["m1"]);
  });

  it("tightens a key file made by hand with a wider mode on the next write, and keeps the other keys", () => {
    const dir = tmpDir();
    fs.writeFileSync(keyFilePath(dir), JSON.stringify({ keys: { old: "sk-old" } }), { mode: 0o644 });
    fs.chmodSync(keyFilePath(dir), 0o644);
    setStoredKey("new", "sk-new", dir);
    expect(modeOf(keyFilePath(dir))).toBe(0o600);
    expect(getStoredKey("old", dir)).toBe("sk-old");
    expect(getStoredKey("new", dir)).toBe("sk-new");
    deleteStoredKey("old", dir);
    expect(getStoredKey("old", dir)).toBeUndefined();
    expect(modeOf(keyFilePath(dir))).toBe(0o600);
    // No temporary file is left behind.
    expect(fs.readdirSync(dir)).toEqual(["model-keys.json"]);
  });

  it("a broken key file is an error that does not repeat the file's content", () => {
    const dir = tmpDir();
    fs.writeFileSync(keyFilePath(dir), '{"keys": {"m": "sk-secret-123"');
    expect(() => getStoredKey("m", dir)).toThrow(/not valid/);
    try {
      getStoredKey("m", dir);
    } catch (err) {
      expect((err as Error).message).not.toContain("sk-secret-123");
    }
  });

  it("no file, no keys", () => {
    expect(getStoredKey("x", tmpDir())).toBeUndefined();
  });
});
