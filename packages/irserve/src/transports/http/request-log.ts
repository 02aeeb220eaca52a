import type { FastifyInstance } from 'fastify';

/** Query parameters whose value is a secret by its name (compared without case). */
const SECRET_PARAMETER =
  /^(?:api[-_]?key|key|token|access[-_]?token|auth|authorization|password|secret)$/i;
const REDACTED = '[REDACTED]';

/**
 * `url` as the log may show it: the value of a query parameter named like a key or token
 * (`api_key`, `token`, `access_token`, ...) and the server's own API key wherever it appears
 * (raw or percent-encoded) are replaced by `[REDACTED]`. irserve reads its key from the
 * `Authorization` header only, but a client that puts it in the URL must not leave it in logs.
 *
 * @example
 * urlForLog('/health?api_key=s3cret&service=bm25', undefined); // '/health?api_key=[REDACTED]&service=bm25'
 */
export function urlForLog(url: string, apiKey: string | undefined): string {
  let out = url;
  const key = apiKey?.trim();
  // A key of a few characters would blank out ordinary text of the URL; it is weak anyway.
  if (key !== undefined && key.length >= 4) {
    for (const form of new Set([key, encodeURIComponent(key)]))
      if (out.includes(form)) out = out.split(form).join(REDACTED);
  }
  const query = out.indexOf('?');
  if (query < 0) return out;
  const parameters = out
    .slice(query + 1)
    .split('&')
    .map((parameter) => {
      const equals = parameter.indexOf('=');
      if (equals < 0) return parameter;
      const name = parameter.slice(0, equals);
      return SECRET_PARAMETER.test(decodedName(name)) ? `${name}=${REDACTED}` : parameter;
    });
  return `${out.slice(0, query + 1)}${parameters.join('&')}`;
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/**
 * One info line per answered request: request id, method, URL (secrets redacted), status and
 * milliseconds.
 *
 * @example
 * logEachRequest(server, options.apiKey);
 */
export function logEachRequest(server: FastifyInstance, apiKey: string | undefined): void {
  server.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        reqId: request.id,
        method: request.method,
        url: urlForLog(request.url, apiKey),
        status: reply.statusCode,
        ms: Number(reply.elapsedTime.toFixed(2)),
      },
      'request',
    );
    done();
  });
}
