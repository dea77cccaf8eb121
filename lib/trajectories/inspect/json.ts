/**
 * JSON as Python's json module writes it: `NaN`, `Infinity` and `-Infinity` may stand where a
 * number does (Inspect writes a metric that could not be computed as NaN). They are read as
 * null, since JSON has no such numbers; everything else is JSON.parse's. Text inside strings is
 * never touched.
 */
export function parseLenientJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!/NaN|Infinity/.test(text)) throw err;
  }
  let out = "";
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) {
      inString = true;
      continue;
    }
    for (const word of ["-Infinity", "Infinity", "NaN"]) {
      if (text.startsWith(word, i)) {
        out += text.slice(last, i) + "null";
        i += word.length - 1;
        last = i + 1;
        break;
      }
    }
  }
  return JSON.parse(out + text.slice(last));
}
