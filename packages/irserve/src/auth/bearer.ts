import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Checks `Authorization: Bearer <key>` in constant time: both sides are hashed first, so the
 * comparison takes the same time whatever the lengths. Surrounding whitespace counts on neither
 * side (HTTP trims header values; a key read from a file often ends with a newline).
 */
export function createBearerCheck(apiKey: string): (header: string | undefined) => boolean {
  const expected = createHash('sha256').update(apiKey.trim()).digest();
  return (header) => {
    if (typeof header !== 'string') return false;
    const match = /^Bearer\s+(.+)$/i.exec(header.trim());
    const token = match?.[1] ?? '';
    const actual = createHash('sha256').update(token).digest();
    // Evaluate both parts every time so a missing token takes as long as a wrong one.
    const same = timingSafeEqual(actual, expected);
    return same && match !== null;
  };
}
