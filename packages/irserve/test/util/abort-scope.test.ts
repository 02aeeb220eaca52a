import { describe, expect, it } from 'vitest';
import { AbortScope, onAbort, raceAbort } from '../../src/util/abort-scope.js';
import { deadlineSignal } from '../../src/util/deadline.js';
import { countAbortControllers } from '../helpers/count-abort-controllers.js';

describe('AbortScope', () => {
  it('aborts a real AbortSignal: event listeners and scope listeners are both told', () => {
    const scope = new AbortScope();
    const seen: string[] = [];
    scope.signal.addEventListener('abort', () => seen.push(`event ${String(scope.signal.reason)}`));
    onAbort(scope.signal, () => seen.push(`scope ${String(scope.signal.reason)}`));
    scope.abort('gone');
    expect(scope.signal.aborted).toBe(true);
    expect(scope.signal.reason).toBe('gone');
    expect(seen).toEqual(['event gone', 'scope gone']);
  });

  it('calls each listener once, in order, and a second abort changes nothing', () => {
    const scope = new AbortScope();
    const calls: number[] = [];
    onAbort(scope.signal, () => calls.push(1));
    onAbort(scope.signal, () => calls.push(2));
    scope.abort(new Error('first'));
    scope.abort(new Error('second'));
    expect(calls).toEqual([1, 2]);
    expect((scope.signal.reason as Error).message).toBe('first');
  });

  // A scope's signal keeps its listeners in the scope's list; any other gets event listeners.
  it.each([
    ['the signal of a scope', () => new AbortScope()],
    ['a signal from anywhere else', () => new AbortController()],
  ])(
    '%s: a listener that stopped listening is not called; stopping or aborting twice is harmless',
    (_, make) => {
      const source = make();
      const calls: string[] = [];
      const stop = onAbort(source.signal, () => calls.push('stopped'));
      onAbort(source.signal, () => calls.push('kept'));
      stop();
      stop();
      source.abort();
      source.abort();
      expect(calls).toEqual(['kept']);
    },
  );

  it('never calls a listener added after the abort (as an AbortSignal does)', () => {
    const scope = new AbortScope();
    scope.abort();
    let called = false;
    const stop = onAbort(scope.signal, () => (called = true));
    stop();
    expect(called).toBe(false);
  });

  it('runs every listener even when one throws, then throws the first error', () => {
    const scope = new AbortScope();
    const calls: string[] = [];
    onAbort(scope.signal, () => {
      throw new Error('bad listener');
    });
    onAbort(scope.signal, () => calls.push('after'));
    onAbort(scope.signal, () => {
      throw new Error('second bad listener');
    });
    expect(() => scope.abort()).toThrow('bad listener');
    expect(calls).toEqual(['after']);
    expect(scope.signal.aborted).toBe(true);
  });

  it('carries a caller signal, a deadline and a race through one chain of scopes', async () => {
    const caller = new AbortScope();
    const deadline = deadlineSignal(Date.now() + 60_000, caller.signal, 'service "s"');
    const pending = raceAbort(new Promise(() => undefined), deadline.signal);
    caller.abort(new Error('client closed'));
    await expect(pending).rejects.toThrow('client closed');
    expect(deadline.signal?.reason).toBe(caller.signal.reason);
    deadline.dispose();
  });

  it('times out a race at its deadline with ERR_TIMEOUT, and a disposed deadline stops listening', async () => {
    const caller = new AbortScope();
    const soon = deadlineSignal(Date.now() + 10, caller.signal, 'service "s"');
    await expect(raceAbort(new Promise(() => undefined), soon.signal)).rejects.toMatchObject({
      code: 'ERR_TIMEOUT',
    });
    soon.dispose();
    const later = deadlineSignal(Date.now() + 60_000, caller.signal, 'service "t"');
    later.dispose();
    caller.abort(new Error('after dispose'));
    expect(later.signal?.aborted).toBe(false);
  });
});

describe('AbortScope: its AbortSignal, made on demand', () => {
  it('aborts, is listened to and races without ever making an AbortSignal', async () => {
    const made = await countAbortControllers(async () => {
      const scope = new AbortScope();
      const calls: string[] = [];
      onAbort(scope, () => calls.push('listener'));
      const pending = raceAbort(new Promise(() => undefined), scope);
      scope.abort(new Error('gone'));
      await expect(pending).rejects.toThrow('gone');
      expect(calls).toEqual(['listener']);
      expect(scope.aborted).toBe(true);
      expect((scope.reason as Error).message).toBe('gone');
    });
    expect(made).toBe(0);
  });

  it('makes one signal, the same each time, aborted already when asked for after the abort', () => {
    const scope = new AbortScope();
    scope.abort('late');
    const signal = scope.signal;
    expect(signal).toBe(scope.signal);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('late');
  });

  it('tells listeners on the scope and on its signal alike, event listeners first', () => {
    const scope = new AbortScope();
    const seen: string[] = [];
    onAbort(scope, () => seen.push('scope'));
    onAbort(scope.signal, () => seen.push('signal'));
    scope.signal.addEventListener('abort', () => seen.push('event'));
    scope.abort();
    expect(seen).toEqual(['event', 'scope', 'signal']);
  });

  it('gives an AbortError as its reason when aborted without one, as AbortController does', () => {
    const scope = new AbortScope();
    scope.abort();
    expect(scope.reason).toBeInstanceOf(DOMException);
    expect((scope.reason as DOMException).name).toBe('AbortError');
    expect(scope.signal.reason).toBe(scope.reason);
  });
});
