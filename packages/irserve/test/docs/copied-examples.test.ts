/**
 * Issue 39, item 15: documentation examples that fail when copied. Every `curl` that sends a
 * body says it is JSON (without the header irserve answers 415), and the compat routes' example
 * config names engines that exist.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name)),
  ...readdirSync(join(root, 'packages')).map((name) => join('packages', name, 'README.md')),
].filter((path) => {
  try {
    readFileSync(join(root, path));
    return true;
  } catch {
    return false;
  }
});

/** The curl commands of a Markdown text, continuation lines joined. */
function curls(text: string): string[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => /\bcurl\b.*\s(-d|--data)\s/.test(line));
}

describe('documentation examples that are copied', () => {
  it.each(docs)('%s: every curl with a body sends content-type: application/json', (path) => {
    const text = readFileSync(join(root, path), 'utf8');
    const missing = curls(text).filter((line) => !/content-type: application\/json/i.test(line));
    expect(missing).toEqual([]);
  });

  it('docs/compat-apis.md names the engines as they are registered', () => {
    const text = readFileSync(join(root, 'docs/compat-apis.md'), 'utf8');
    expect(text).not.toMatch(/"engine": "(CrossEncoder|Splade)"/);
  });

  it("the README's engine table lists each engine once", () => {
    const text = readFileSync(join(root, 'README.md'), 'utf8');
    const rows = text.split('\n').filter((line) => /^\| `\w+`/.test(line));
    const first = rows.map((row) => /`(\w+)`/.exec(row)![1]);
    expect(first).toEqual([...new Set(first)]);
  });
});
