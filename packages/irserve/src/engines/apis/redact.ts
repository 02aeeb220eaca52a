/**
 * Keeps secrets out of error messages and logs. Upstream APIs sometimes echo the key they were
 * sent (OpenAI answers "Incorrect API key provided: sk-proj-****abcd"), so besides the exact
 * secret, any word that starts like a secret is hidden too.
 */

const REDACTED = '[redacted]';

/**
 * Returns `text` with every secret, and every word that starts with a secret's first characters,
 * replaced by `[redacted]`.
 *
 * @example
 * redact('bad key sk-abc123', ['sk-abc123']) // 'bad key [redacted]'
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < 4) continue;
    out = out.split(secret).join(REDACTED);
    out = out
      .split(/(\s+)/)
      .map((word) => (looksLike(word, secret) ? REDACTED : word))
      .join('');
  }
  return out;
}

/**
 * Whether `word` carries part of `secret`: its first half (up to 8 characters), or a masked echo
 * (`sk-pr****wxyz`) that keeps its first or last four characters.
 */
function looksLike(word: string, secret: string): boolean {
  if (word.includes(secret.slice(0, Math.min(8, Math.ceil(secret.length / 2))))) return true;
  if (!/\*{3,}/.test(word)) return false;
  return word.includes(secret.slice(0, 4)) || word.includes(secret.slice(-4));
}

/**
 * A URL as it may appear in messages: origin and path only. User info and the query string are
 * dropped because some providers take keys there (`?key=`, `?api-key=`).
 *
 * @example
 * displayUrl('https://user:pw@api.example.com/v1/rerank?key=s') // 'https://api.example.com/v1/rerank'
 */
export function displayUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}
