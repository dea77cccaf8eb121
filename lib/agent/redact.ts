/**
 * Removes known secrets (API keys) from text a provider sent back (an error body, a reply) before
 * it is stored or shown: a provider, or an address posing as one, may echo the key it was sent.
 * Secrets shorter than 8 characters are left alone (they would match ordinary words).
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) {
    if (!s || s.length < 8) continue;
    out = out.split(s).join("[redacted key]");
    // The same key as it appears URL- or JSON-encoded.
    const encoded = [encodeURIComponent(s), JSON.stringify(s).slice(1, -1)].filter((e) => e !== s);
    for (const e of encoded) out = out.split(e).join("[redacted key]");
  }
  return out;
}
