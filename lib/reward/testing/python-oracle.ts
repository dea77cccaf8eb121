import { execFileSync } from "node:child_process";

/**
 * Test helper (not used by the reward code): runs a python3 snippet that reads JSON `input` from
 * stdin as `data` and assigns a JSON-serialisable `result`; returns the parsed result. Python is the
 * oracle the reward functions are checked against, so the expected values are computed, not typed in.
 */
export function runPython<T>(body: string, input: unknown): T {
  const script = `import sys, json, math\ndata = json.load(sys.stdin)\n${body}\nsys.stdout.write(json.dumps(result))\n`;
  const out = execFileSync("python3", ["-c", script], { input: JSON.stringify(input), maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(out.toString("utf8")) as T;
}

/** True when python3 can import every module named (numpy, scipy…). */
export function pythonHas(...modules: string[]): boolean {
  try {
    execFileSync("python3", ["-c", modules.map((m) => `import ${m}`).join("\n") || "pass"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
