import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createCliLogger } from '../../src/cli/logger.js';

/** What the logger wrote to stdout for one info line. */
async function written(format: string, tty: boolean): Promise<string> {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = await createCliLogger({ level: 'info', format, tty, destination });
  logger.info({ service: 'bm25' }, 'irserve listening on http://127.0.0.1:8000');
  await new Promise((resolve) => setImmediate(resolve));
  return chunks.join('');
}

describe('the command logger', () => {
  it('writes readable lines on a terminal and JSON otherwise', async () => {
    const pretty = await written('auto', true);
    expect(pretty).toMatch(/INFO.*irserve listening on http:\/\/127\.0\.0\.1:8000/);
    expect(pretty).not.toMatch(/^\{/);
    const json = await written('auto', false);
    expect(JSON.parse(json.trim())).toMatchObject({ level: 30, service: 'bm25' });
    expect(JSON.parse((await written('json', true)).trim())).toMatchObject({ level: 30 });
    expect(await written('pretty', false)).toMatch(/INFO/);
  });

  it('rejects unknown levels and formats naming the flag', async () => {
    await expect(createCliLogger({ level: 'loud', format: 'auto' })).rejects.toThrow(/--log_level/);
    await expect(createCliLogger({ level: 'info', format: 'xml' })).rejects.toThrow(/--log_format/);
  });
});
