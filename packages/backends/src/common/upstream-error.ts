/**
 * One mapping from a back-end's failure to irserve's catalog (docs/errors.md): a back-end that
 * did not answer within the engine's `timeout` is ERR_UPSTREAM_TIMEOUT (504), any other
 * failure (refused, reset, an error reply, a back-end listed as down) ERR_UPSTREAM (502), the cause kept and the message naming the
 * service and the back-end. Secrets (passwords, API keys) are cut out of every message, since
 * drivers like to echo connection strings.
 */
import { IrserveError } from 'irserve/plugin';

/**
 * Messages of Node, pg, mysql2 and the search clients that mean "the back-end did not answer in
 * time": pg's `Query read timeout` and `canceling statement due to statement timeout`, mysql2's
 * `Query inactivity timeout`, the clients' `Request timed out`.
 */
const TIMEOUT_PATTERN = /timed? ?out|statement timeout|TimeoutError/i;

/** Error codes with the same meaning: a socket timeout, mysql2's query timeout. */
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'PROTOCOL_SEQUENCE_TIMEOUT']);

/**
 * Whether a back-end's failure is a timeout (ERR_UPSTREAM_TIMEOUT, 504) rather than a failure
 * (ERR_UPSTREAM, 502): by the driver's code or error class first, then by its message.
 *
 * @example
 * isTimeout(Object.assign(new Error('Query inactivity timeout'), { code: 'PROTOCOL_SEQUENCE_TIMEOUT' })) // true
 * isTimeout(new Error('connect ECONNREFUSED 127.0.0.1:5432')) // false
 */
export function isTimeout(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && TIMEOUT_CODES.has(code)) return true;
  if (error.name === 'TimeoutError') return true;
  if (TIMEOUT_PATTERN.test(error.message)) return true;
  return error.cause !== undefined && error.cause !== error && isTimeout(error.cause);
}

export interface UpstreamContext {
  /** The irserve service name. */
  service: string;
  /** The back-end in words: `PostgreSQL`, `OpenSearch`, `Manticore`. */
  backend: string;
  /** Strings never to show (passwords, keys). */
  secrets?: readonly string[];
}

/**
 * An IrserveError for a failed back-end call; an IrserveError thrown on purpose passes through.
 *
 * @example
 * try { await pool.query(sql) } catch (e) { throw upstreamError(e, { service: 'pg', backend: 'PostgreSQL' }) }
 */
export function upstreamError(error: unknown, context: UpstreamContext): IrserveError {
  if (error instanceof Error && error.name === 'IrserveError') return error as IrserveError;
  const raw = describe(error);
  const message = redactSecrets(raw, context.secrets ?? []);
  const timeout = isTimeout(error);
  return new IrserveError(
    timeout ? 'ERR_UPSTREAM_TIMEOUT' : 'ERR_UPSTREAM',
    `service "${context.service}": ${context.backend} ${timeout ? 'did not answer in time' : 'failed'}: ${message}`,
    { cause: error, details: { service: context.service, backend: context.backend } },
  );
}

/** `text` with every secret replaced by `***` (secrets shorter than 3 characters are left alone). */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text.replace(/(\/\/[^:/@\s]+:)[^@\s]+@/g, '$1***@');
  for (const secret of secrets) if (secret.length >= 3) out = out.split(secret).join('***');
  return out;
}

/** One line for a driver's error: its code, message and (search clusters) the error body's reason. */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // Node reports a refused connection to every address of a host as an AggregateError with no message.
  if (error instanceof AggregateError && !error.message && error.errors.length > 0)
    return describe(error.errors[0]);
  const code = (error as { code?: unknown }).code;
  const meta = (error as { meta?: { body?: unknown; statusCode?: unknown } }).meta;
  const body = meta?.body === undefined || meta.body === '' ? '' : `: ${summarise(meta.body)}`;
  const reason =
    typeof meta?.statusCode === 'number'
      ? ` (HTTP ${meta.statusCode}${body})`
      : body
        ? ` (${body.slice(2)})`
        : '';
  const prefix = typeof code === 'string' && !error.message.includes(code) ? `${code}: ` : '';
  const message = error.message || error.constructor.name;
  return `${prefix}${message}${reason}`;
}

/** A search cluster's error body in one line (`type: reason`), capped. */
function summarise(body: unknown): string {
  const root = (body as { error?: { type?: unknown; reason?: unknown } } | undefined)?.error;
  const text =
    root && typeof root === 'object'
      ? `${String(root.type)}: ${String(root.reason)}`
      : JSON.stringify(body);
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}
