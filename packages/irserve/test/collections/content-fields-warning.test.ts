import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { captureLogs } from '../../src/testing/index.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Starts an app over a two-document corpus with these content fields; returns its warnings. */
async function warningsFor(contentFields: string[]): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'irserve-fields-'));
  dirs.push(dir);
  const docs = [
    { id: 'a', title: 'A', contents: 'first' },
    { id: 'b', title: 'B', contents: 'second' },
  ];
  await writeFile(join(dir, 'docs.jsonl'), docs.map((doc) => JSON.stringify(doc)).join('\n'));
  const { logger, logs } = captureLogs('warn');
  const app = await createApp(
    {
      collections: [
        {
          name: 'docs',
          views: {
            text: {
              kind: 'text',
              source: {
                source: 'text_jsonl',
                doc_path: 'docs.jsonl',
                content_fields: contentFields,
              },
            },
          },
        },
      ],
    },
    { logger, configDir: dir, interactive: false },
  );
  try {
    await app.start();
  } finally {
    await app.close();
  }
  return logs.messages('warn');
}

describe('content_fields that match no field of the documents', () => {
  it('warns at start-up naming the view, the field and the fields the documents have', async () => {
    const warnings = await warningsFor(['text', 'contents']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /view "text" of .*docs\.jsonl: content_fields entry "text" is in none of the first documents \(their fields: id, title, contents\)/,
    );
  });

  it('stays quiet when every entry matches', async () => {
    expect(await warningsFor(['contents'])).toEqual([]);
  });
});
