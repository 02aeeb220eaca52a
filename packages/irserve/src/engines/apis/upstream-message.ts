/**
 * The human-readable part of an API's error body. Providers disagree on the shape: OpenAI and
 * vLLM send `{error: {message}}`, TEI `{error: "..."}`, Cohere and Jina `{message}`, Voyage and
 * other FastAPI servers `{detail}` (a string or a list of `{msg}`).
 *
 * @example
 * upstreamMessage('{"error":{"message":"model not found"}}') // 'model not found'
 */
export function upstreamMessage(text: string, max = 200): string {
  const found = fromJson(text);
  const message = found ?? text.trim();
  if (message === '') return 'empty body';
  return message.length > max ? `${message.slice(0, max)}...` : message;
}

function fromJson(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object') return undefined;
  const body = parsed as Record<string, unknown>;
  const error = body.error;
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object') {
    const message = (error as Record<string, unknown>).message;
    if (typeof message === 'string') return message;
  }
  if (typeof body.message === 'string') return body.message;
  if (typeof body.detail === 'string') return body.detail;
  if (Array.isArray(body.detail)) {
    const parts = body.detail.map((item: unknown) => {
      const msg = item && typeof item === 'object' ? (item as Record<string, unknown>).msg : '';
      return typeof msg === 'string' ? msg : '';
    });
    const joined = parts.filter(Boolean).join('; ');
    return joined || undefined;
  }
  return undefined;
}
