import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IrserveError } from '../../src/errors.js';
import { SharedDeadlines } from '../../src/util/shared-deadlines.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('SharedDeadlines', () => {
  it('gives calls with the same deadline and parent one signal, others their own', () => {
    const deadlines = new SharedDeadlines();
    const parent = new AbortController().signal;
    const at = Date.now() + 500;
    const a = deadlines.acquire(at, parent, 'service "a"');
    const b = deadlines.acquire(at, parent, 'service "b"');
    const later = deadlines.acquire(at + 1, parent, 'service "c"');
    const orphan = deadlines.acquire(at, undefined, 'service "d"');
    expect(a.signal).toBe(b.signal);
    expect(later.signal).not.toBe(a.signal);
    expect(orphan.signal).not.toBe(a.signal);
    for (const d of [a, b, later, orphan]) d.dispose();
  });

  it('aborts at the deadline; each call gets its own ERR_TIMEOUT naming its service', () => {
    const deadlines = new SharedDeadlines();
    const at = Date.now() + 500;
    const a = deadlines.acquire(at, undefined, 'service "a"');
    const b = deadlines.acquire(at, undefined, 'service "b"');
    vi.advanceTimersByTime(499);
    expect(a.signal?.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(a.signal?.aborted).toBe(true);
    const reason: unknown = a.signal?.reason;
    const ownA = a.ownError(reason) as IrserveError;
    const ownB = b.ownError(reason) as IrserveError;
    expect(ownA).toBeInstanceOf(IrserveError);
    expect(ownA.code).toBe('ERR_TIMEOUT');
    expect(ownA.message).toBe('service "a" did not finish before its deadline');
    expect(ownB.message).toBe('service "b" did not finish before its deadline');
    // Any other error is reported as it is.
    const other = new Error('boom');
    expect(b.ownError(other)).toBe(other);
    a.dispose();
    b.dispose();
  });

  it("aborts with the parent's reason, which each call reports as it is", () => {
    const deadlines = new SharedDeadlines();
    const parent = new AbortController();
    const at = Date.now() + 500;
    const a = deadlines.acquire(at, parent.signal, 'service "a"');
    const b = deadlines.acquire(at, parent.signal, 'service "b"');
    const closed = new IrserveError('ERR_CLIENT_CLOSED', 'client closed the connection');
    parent.abort(closed);
    expect(a.signal?.reason).toBe(closed);
    expect(a.ownError(closed)).toBe(closed);
    expect(b.ownError(closed)).toBe(closed);
    a.dispose();
    b.dispose();
  });

  it('keeps the timer while one call still holds it, and releases it with the last', () => {
    const deadlines = new SharedDeadlines();
    const parent = new AbortController();
    const at = Date.now() + 500;
    const a = deadlines.acquire(at, parent.signal, 'service "a"');
    const b = deadlines.acquire(at, parent.signal, 'service "b"');
    a.dispose();
    a.dispose(); // twice is once
    expect(vi.getTimerCount()).toBe(1);
    b.dispose();
    expect(vi.getTimerCount()).toBe(0);
    // Released: neither the deadline nor the parent aborts it any more.
    parent.abort(new Error('late'));
    vi.advanceTimersByTime(1_000);
    expect(b.signal?.aborted).toBe(false);
    // A later call with the same deadline gets a signal of its own.
    const c = deadlines.acquire(at + 1_000, undefined, 'service "c"');
    const d = deadlines.acquire(Date.now() + 200, undefined, 'service "d"');
    expect(c.signal).not.toBe(b.signal);
    expect(d.signal).not.toBe(c.signal);
    c.dispose();
    d.dispose();
  });

  it('shares no aborted signal: a call after the deadline or after the parent left gets its own', () => {
    const deadlines = new SharedDeadlines();
    const at = Date.now() + 100;
    const a = deadlines.acquire(at, undefined, 'service "a"');
    vi.advanceTimersByTime(100);
    const late = deadlines.acquire(at, undefined, 'service "b"');
    expect(late.signal).not.toBe(a.signal);
    expect(late.signal?.aborted).toBe(true);
    expect((late.signal?.reason as Error).message).toBe(
      'service "b" did not finish before its deadline',
    );
    const left = new AbortController();
    left.abort(new Error('gone'));
    const orphan = deadlines.acquire(Date.now() + 100, left.signal, 'service "c"');
    expect((orphan.signal?.reason as Error).message).toBe('gone');
    // Without a deadline the parent itself is the signal, as for a call of its own.
    const parent = new AbortController().signal;
    expect(deadlines.acquire(undefined, parent, 'service "d"').signal).toBe(parent);
    for (const d of [a, late, orphan]) d.dispose();
  });
});
