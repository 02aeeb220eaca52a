import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfigFile, validateConfig } from '../../src/config/load.js';
import { configJsonSchema } from '../../src/config/json-schema.js';
import { describeJsonSyntaxError } from '../../src/config/json-syntax.js';

function problemsOf(input: unknown): string[] {
  try {
    validateConfig(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('config validation', () => {
  it('applies the specification defaults', () => {
    const config = validateConfig({ services: [{ name: 'a', engine: 'E' }] });
    expect(config.services[0]).toMatchObject({
      cache: 1024,
      cache_ttl: 600,
      batch_size: 32,
      max_wait_time: 0.1,
      config: {},
      processor: 'batch',
    });
    expect(config.collections).toEqual([]);
    expect(config.server_imports).toEqual([]);
  });

  it('reports every problem at once, each with its JSON path', () => {
    const problems = problemsOf({
      services: [
        { name: '', engine: 3 },
        { engine: 'E', batch_size: 0 },
      ],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^services\[0\]\.name: /),
        expect.stringMatching(/^services\[0\]\.engine: /),
        expect.stringMatching(/^services\[1\]\.name: /),
        expect.stringMatching(/^services\[1\]\.batch_size: /),
      ]),
    );
  });

  it('rejects unknown keys with a "did you mean" hint', () => {
    expect(problemsOf({ service: [] })).toEqual([
      'service: unknown key (did you mean "services"?)',
    ]);
    expect(problemsOf({ services: [{ name: 'a', engine: 'E', batch_sise: 4 }] })).toEqual([
      'services[0].batch_sise: unknown key (did you mean "batch_size"?)',
    ]);
  });

  it('accepts RoutIR field names and maps cache_redis_* to cache_kv_*', () => {
    const config = validateConfig({
      services: [
        {
          name: 'a',
          engine: 'E',
          config: {},
          processor: 'BatchQueryProcessor',
          cache_key_fields: ['query', 'limit'],
          cache_redis_url: 'redis://h:1',
          cache_redis_kwargs: { db: 1 },
          scoring_disabled: true,
        },
      ],
    });
    expect(config.services[0]).toMatchObject({
      cache_kv_url: 'redis://h:1',
      cache_kv_kwargs: { db: 1 },
      scoring_disabled: true,
    });
  });

  it('rejects duplicate service and collection names', () => {
    expect(
      problemsOf({
        services: [
          { name: 'a', engine: 'E' },
          { name: 'a', engine: 'F' },
        ],
      }),
    ).toEqual(['services[1].name: "a" is already used by services[0]']);
  });

  it.each([
    ['a non-object', 42],
    ['an array', []],
    ['null', null],
    ['services as an object', { services: {} }],
    ['cache as a string', { services: [{ name: 'a', engine: 'E', cache: '10' }] }],
    ['a negative max_wait_time', { services: [{ name: 'a', engine: 'E', max_wait_time: -1 }] }],
    ['a bad server_imports URL', { server_imports: ['not a url'] }],
  ])('rejects %s', (_label, input) => {
    expect(problemsOf(input).length).toBeGreaterThan(0);
  });

  it('freezes the result', () => {
    const config = validateConfig({ services: [{ name: 'a', engine: 'E' }] });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.services[0])).toBe(true);
  });

  it('exports a JSON Schema of the config', () => {
    const schema = configJsonSchema([]);
    expect(schema).toMatchObject({ type: 'object', properties: { services: { type: 'array' } } });
  });
});

describe('loadConfigFile', () => {
  it('reads a file and returns its directory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'irserve-config-'));
    await writeFile(join(dir, 'c.json'), JSON.stringify({ services: [] }));
    await expect(loadConfigFile(join(dir, 'c.json'))).resolves.toMatchObject({ configDir: dir });
  });

  it('names a missing file and invalid JSON', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'irserve-config-'));
    await expect(loadConfigFile(join(dir, 'missing.json'))).rejects.toThrow(/file not found/);
    await writeFile(join(dir, 'bad.json'), '{"services": [');
    await expect(loadConfigFile(join(dir, 'bad.json'))).rejects.toThrow(/not valid JSON/);
  });

  it('places a JSON syntax error by line and column, with the line and a caret', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'irserve-config-'));
    const path = join(dir, 'config.json');
    await writeFile(path, '{\n  "services": [],\n  "port": 8000,\n}\n');
    const error = await refusal(path);
    expect(error.problems[0]).toMatch(new RegExp(`^${escapeRegExp(path)}:4:1: not valid JSON: `));
    expect(error.problems[0]).not.toMatch(/position/);
    expect(error.problems[0]).toMatch(/\n {6}}\n {6}\^$/);
    await writeFile(path, '{"services": [');
    const early = await refusal(path);
    expect(early.problems[0]).toMatch(new RegExp(`^${escapeRegExp(path)}:1:15: not valid JSON: `));
  });
});

describe('describeJsonSyntaxError', () => {
  const parseError = (text: string) => {
    try {
      JSON.parse(text);
    } catch (error) {
      return error as Error;
    }
    throw new Error('expected a syntax error');
  };

  it("reads Node 22's line and column and Node 20's position", () => {
    const text = '{\n  "a": 1,\n  }';
    const node22 = new SyntaxError(
      'Expected double-quoted property name in JSON at position 14 (line 3 column 3)',
    );
    expect(describeJsonSyntaxError('c.json', text, node22)).toBe(
      'c.json:3:3: not valid JSON: Expected double-quoted property name\n        }\n        ^',
    );
    const node20 = new SyntaxError('Expected double-quoted property name in JSON at position 14');
    expect(describeJsonSyntaxError('c.json', text, node20)).toBe(
      describeJsonSyntaxError('c.json', text, node22),
    );
  });

  it('places an unexpected token by the text quoted around it, whatever this Node says', () => {
    const text = '{\n  "services": [\n    { "name": "bm25", "engine": "BM25" },\n  ]\n}\n';
    expect(describeJsonSyntaxError('c.json', text, parseError(text))).toMatch(
      /^c\.json:4:3: not valid JSON: .*\n {8}]\n {8}\^$/,
    );
    const opening = '] and then a long tail of text';
    expect(describeJsonSyntaxError('c.json', opening, parseError(opening))).toMatch(
      /^c\.json:1:1: not valid JSON: /,
    );
  });

  it('falls back to the message where nothing places the error', () => {
    const quotedWhole = new SyntaxError(`Unexpected token 't', "{ tru }" is not valid JSON`);
    expect(describeJsonSyntaxError('c.json', '{ tru }', quotedWhole)).toBe(
      "c.json: not valid JSON: Unexpected token 't'",
    );
  });
});

/** The ConfigError loading that file throws. */
async function refusal(path: string): Promise<ConfigError> {
  try {
    await loadConfigFile(path);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`expected ${path} to be refused`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
