/**
 * Cosine similarity of two texts under scikit-learn's default `TfidfVectorizer`, fitted on just those
 * two texts, as InterCode's bash reward computes it.
 *
 * The defaults reproduced: text lower-cased; tokens are runs of two or more word characters (Python's
 * `(?u)\b\w\w+\b`, where a word character is a letter, a number or `_`); raw counts; smoothed idf
 * ln((1 + n) / (1 + df)) + 1 with n = 2 documents; each row divided by its L2 norm; the similarity
 * is the dot product of the two rows. Sums run over the columns in the order scikit-learn's sparse rows
 * keep them (order of first appearance in the corpus), so the float matches to the last bit or two.
 *
 * When neither text has a token, scikit-learn refuses ("empty vocabulary") and InterCode falls back
 * to exact equality: 1 if the texts are equal, else 0.
 *
 * @returns a similarity in [0, 1].
 */
export function tfidfCosine(a: string, b: string): number {
  const ta = tokenize(a);
  const tb = tokenize(b);
  if (ta.length === 0 && tb.length === 0) return a === b ? 1 : 0;
  // Column order of scikit-learn's rows: first appearance over the corpus, document a first.
  const vocabulary = new Map<string, number>();
  for (const t of [...ta, ...tb]) if (!vocabulary.has(t)) vocabulary.set(t, vocabulary.size);
  const ca = countByColumn(ta, vocabulary);
  const cb = countByColumn(tb, vocabulary);
  const va = weights(ca, cb);
  const vb = weights(cb, ca);
  let dot = 0;
  for (const [column, wa] of va) {
    const wb = vb.get(column);
    if (wb !== undefined) dot += wa * wb;
  }
  return Math.min(1, Math.max(0, dot));
}

/** scikit-learn's default analyzer: lower-case, then every run of two or more word characters. */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(TOKEN) ?? [];
}

const TOKEN = /[\p{L}\p{N}_]{2,}/gu;

/** idf of a term found in one of the two documents: ln(3/2) + 1. A term in both gets ln(3/3) + 1 = 1. */
const IDF_ONE_DOC = Math.log(3 / 2) + 1;

/** Term counts keyed by column, in column order. */
function countByColumn(tokens: readonly string[], vocabulary: Map<string, number>): Map<number, number> {
  const counts = new Map<number, number>();
  for (const t of tokens) {
    const column = vocabulary.get(t) ?? -1;
    counts.set(column, (counts.get(column) ?? 0) + 1);
  }
  return new Map([...counts].sort((x, y) => x[0] - y[0]));
}

/** L2-normalised tf-idf weights of one document's row, in column order. */
function weights(own: Map<number, number>, other: Map<number, number>): Map<number, number> {
  const w = new Map<number, number>();
  let sumSquares = 0;
  for (const [column, count] of own) {
    const value = count * (other.has(column) ? 1 : IDF_ONE_DOC);
    w.set(column, value);
    sumSquares += value * value;
  }
  if (sumSquares === 0) return w;
  const norm = Math.sqrt(sumSquares);
  for (const [column, value] of w) w.set(column, value / norm);
  return w;
}
