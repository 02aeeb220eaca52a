/**
 * How long an API asks us to wait before retrying, from its `retry-after-ms` (OpenAI) or
 * `Retry-After` header (delay in seconds or an HTTP date), in milliseconds; undefined when the
 * answer carries no usable hint.
 *
 * @example
 * retryAfterMs({ 'retry-after': '2' }) // 2000
 */
export function retryAfterMs(
  headers: Record<string, string | string[] | undefined>,
  now: number = Date.now(),
): number | undefined {
  const ms = Number(first(headers['retry-after-ms']));
  if (first(headers['retry-after-ms']) !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const value = first(headers['retry-after'])?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
