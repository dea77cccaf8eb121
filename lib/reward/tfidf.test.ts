import { describe, expect, it } from "vitest";
import { pyRound } from "./round";
import { tfidfCosine, tokenize } from "./tfidf";
import { mulberry32 } from "@/lib/seeded-random";
import { pythonHas, runPython } from "./testing/python-oracle";

describe("tfidfCosine", () => {
  it("worked cases", () => {
    expect(tfidfCosine("hello world", "Hello  WORLD\n")).toBeCloseTo(1, 15);
    expect(tfidfCosine("", "")).toBe(1); // empty vocabulary, equal texts
    expect(tfidfCosine("a b", "a b")).toBe(1); // one-letter words are no tokens
    expect(tfidfCosine("a b", "a c")).toBe(0);
    expect(tfidfCosine("foo", "")).toBe(0);
    expect(tfidfCosine("alpha beta", "gamma delta")).toBe(0);
    // "x bar" has the one token bar; "bar baz" has bar (in both docs: idf 1) and baz (idf ln 1.5 + 1).
    const baz = Math.log(1.5) + 1;
    expect(tfidfCosine("x bar", "bar baz")).toBeCloseTo(1 / Math.sqrt(1 + baz * baz), 15);
    // Counts matter: "aa aa bb" against "aa bb bb" is (2·1 + 1·2) / (√5 · √5) = 0.8.
    expect(tfidfCosine("aa aa bb", "aa bb bb")).toBeCloseTo(0.8, 15);
  });

  it("tokenizes like Python's (?u)\\b\\w\\w+\\b on lower-cased text", () => {
    expect(tokenize("file_1.txt, A b c42 Ünïcode déjà-vu")).toEqual(["file_1", "txt", "c42", "ünïcode", "déjà", "vu"]);
    const random = mulberry32(5);
    const pool = ["a", "B", "_", "1", " ", "-", ".", "\n", "é", "E\u0301", "Σ", "ß", "İ", "٣", "½", "Ⅻ", "中文", "\u{1d400}", "\u00b2", "'"];
    const texts = Array.from({ length: 300 }, () => Array.from({ length: Math.floor(random() * 12) }, () => pool[Math.floor(random() * pool.length)]).join(""));
    const want = runPython<string[][]>("import re\npattern = re.compile(r'(?u)\\b\\w\\w+\\b')\nresult = [pattern.findall(t.lower()) for t in data]", texts);
    expect(texts.map(tokenize)).toEqual(want);
  });

  it.runIf(pythonHas("numpy"))("matches scikit-learn's formula (numpy, dense) and InterCode's rounded 0.33 part", () => {
    const random = mulberry32(11);
    const words = ["ls", "dir1", "file.txt", "total", "4096", "root", "x", "-rw-r--r--", "Error", "error", "No", "such", "file", "directory", ""];
    const text = () => Array.from({ length: Math.floor(random() * 14) }, () => words[Math.floor(random() * words.length)]).join(random() < 0.5 ? " " : "\n");
    const pairs = Array.from({ length: 400 }, () => [text(), text()] as [string, string]);
    const want = runPython<number[]>(
      [
        "import re, numpy as np",
        "pattern = re.compile(r'(?u)\\b\\w\\w+\\b')",
        "result = []",
        "for a, b in data:",
        "    docs = [pattern.findall(a.lower()), pattern.findall(b.lower())]",
        "    vocab = sorted(set(docs[0]) | set(docs[1]))",
        "    if not vocab:",
        "        result.append(1.0 if a == b else 0.0); continue",
        "    X = np.array([[d.count(t) for t in vocab] for d in docs], dtype=float)",
        "    df = (X > 0).sum(axis=0)",
        "    X = X * (np.log(3.0 / (1 + df)) + 1)",
        "    n = np.sqrt((X * X).sum(axis=1, keepdims=True))",
        "    X = X / np.where(n == 0, 1, n)",
        "    result.append(float(X[0] @ X[1]))",
      ].join("\n"),
      pairs,
    );
    const got = pairs.map(([a, b]) => tfidfCosine(a, b));
    const far = got.map((g, i) => ({ pair: pairs[i], got: g, want: want[i] })).filter((c) => Math.abs(c.got - c.want) > 1e-15);
    expect(far).toEqual([]);
    expect(got.map((g) => pyRound(0.33 * g, 2))).toEqual(want.map((w) => pyRound(0.33 * Math.min(w, 1), 2)));
  });

  it("uses the same ln(1.5) as Python", () => {
    expect(Math.log(1.5) + 1).toBe(runPython<number>("result = math.log(1.5) + 1", null));
  });
});
