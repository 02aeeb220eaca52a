/**
 * The mapping of back-end failures to the error catalog (docs/errors.md): a back-end that did
 * not answer in time is ERR_UPSTREAM_TIMEOUT (504), any other failure ERR_UPSTREAM (502), for
 * the errors each driver really throws; secrets never reach the message.
 */
import { describe, expect, it } from 'vitest';
import { IrserveError } from 'irserve/plugin';
import { isConnectionLost } from '../../src/common/backend-link.js';
import { isTimeout, upstreamError } from '../../src/common/upstream-error.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
const named = (message: string, name: string) => Object.assign(new Error(message), { name });

const context = { service: 'svc', backend: 'PostgreSQL', secrets: ['hunter2-pw'] };

describe('back-end failures in the error catalog', () => {
  it.each([
    ['pg statement_timeout', withCode('canceling statement due to statement timeout', '57014')],
    ['pg query_timeout', new Error('Query read timeout')],
    ['pg connect timeout', new Error('timeout exceeded when trying to connect')],
    ['mysql2 query timeout', withCode('Query inactivity timeout', 'PROTOCOL_SEQUENCE_TIMEOUT')],
    ['socket timeout', withCode('connect ETIMEDOUT 10.0.0.1:9306', 'ETIMEDOUT')],
    ['search client timeout', named('Request timed out', 'TimeoutError')],
    ['a timeout as the cause', new Error('query failed', { cause: named('x', 'TimeoutError') })],
  ])('%s is ERR_UPSTREAM_TIMEOUT (504)', (_, error) => {
    expect(isTimeout(error)).toBe(true);
    const mapped = upstreamError(error, context);
    expect(mapped.code).toBe('ERR_UPSTREAM_TIMEOUT');
    expect(mapped.httpStatus).toBe(504);
    expect(mapped.message).toMatch(/^service "svc": PostgreSQL did not answer in time/);
    expect(mapped.cause).toBe(error);
  });

  it.each([
    ['refused', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['reset', withCode('read ECONNRESET', 'ECONNRESET')],
    ['a cancelled statement', withCode('canceling statement due to user request', '57014')],
    ['a missing table', withCode('relation "docs" does not exist', '42P01')],
    ['an error reply', named('index_not_found_exception', 'ResponseError')],
    ['not an Error', 'boom'],
  ])('%s is ERR_UPSTREAM (502)', (_, error) => {
    expect(isTimeout(error)).toBe(false);
    const mapped = upstreamError(error, context);
    expect(mapped.code).toBe('ERR_UPSTREAM');
    expect(mapped.httpStatus).toBe(502);
    expect(mapped.message).toMatch(/^service "svc": PostgreSQL failed/);
  });

  it('passes an IrserveError thrown on purpose through unchanged', () => {
    const own = new IrserveError('ERR_BAD_REQUEST', 'limit: must be positive');
    expect(upstreamError(own, context)).toBe(own);
  });

  it('never shows a password, in the text or in a connection URL', () => {
    const error = new Error(
      'password authentication failed (hunter2-pw) for postgres://app:other-secret@db:5432/x',
    );
    const { message } = upstreamError(error, context);
    expect(message).not.toContain('hunter2-pw');
    expect(message).not.toContain('other-secret');
    expect(message).toContain('postgres://app:***@db');
  });

  it('a timeout never counts as a lost connection (no retry, the service stays listed)', () => {
    expect(isConnectionLost(new Error('Connection terminated due to connection timeout'))).toBe(
      false,
    );
    expect(isConnectionLost(withCode('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'))).toBe(
      true,
    );
    expect(isConnectionLost(new Error('Connection terminated unexpectedly'))).toBe(true);
  });
});
