/**
 * Every log line is JSON with each key once. A service's logger is a pino child bound to
 * `service` and an imported remote's to `remote`; a call that also passed the key wrote it twice
 * (`"service":"bm25","service":"bm25"`), which JSON tools read as the last value and log
 * pipelines may refuse. JSON.parse hides duplicates, so the raw lines are scanned.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { testApp } from '../helpers/app.js';
import { collectionConfig, corpus, instance, until, type Instance } from '../federation/helpers.js';

/** The keys of a JSON object's top level, in the order written, duplicates kept. */
function topLevelKeys(line: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (char === '"') {
      let end = i + 1;
      while (line[end] !== '"') end += line[end] === '\\' ? 2 : 1;
      if (depth === 1 && line[end + 1] === ':') keys.push(JSON.parse(line.slice(i, end + 1)));
      i = end;
    } else if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') depth--;
  }
  return keys;
}

const duplicated = (keys: string[]) => keys.filter((key, i) => keys.indexOf(key) !== i);

describe('log lines', () => {
  const lines: string[] = [];
  let remote: Instance;
  let front: App | undefined;
  let closed = false;

  afterAll(async () => {
    if (!closed) await front?.close();
    await remote?.app.close();
  });

  it('finds a duplicated key (the scanner itself)', () => {
    expect(topLevelKeys('{"a":1,"b":{"a":"x\\"y"},"c":[{"a":2}],"a":3}')).toEqual([
      'a',
      'b',
      'c',
      'a',
    ]);
    expect(duplicated(['service', 'msg', 'service'])).toEqual(['service']);
  });

  it('carry service and remote once, from a BM25 service and imported remotes up and down', async () => {
    const docs = await corpus(20);
    remote = await instance({ services: [{ name: 'const-remote', engine: 'ConstSearch' }] });
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    front = await testApp(
      {
        collections: [collectionConfig('docs', docs)],
        services: [{ name: 'bm25', engine: 'BM25', config: { collection: 'docs' } }],
        server_imports: [remote.url, 'http://127.0.0.1:1'],
      },
      { logger: pino({ level: 'debug' }, sink) },
    );
    await until(async () => lines.some((line) => line.includes('remote not available yet')));
    await front.close();
    closed = true;

    const bound = (key: string) => lines.filter((line) => topLevelKeys(line).includes(key));
    expect(bound('service').length).toBeGreaterThan(0);
    expect(bound('remote').length).toBeGreaterThan(0);
    expect(lines.filter((line) => duplicated(topLevelKeys(line)).length > 0)).toEqual([]);
  });
});
