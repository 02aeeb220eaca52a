/**
 * The config file's JSON Schema: compiles under Ajv's strict mode, describes every field, and
 * applies each engine's own config schema (a typo or a string where a number belongs inside an
 * engine's `config` fails the schema, as it fails the server).
 */
import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { Dense } from '@irserve/dense';
import { configJsonSchema } from '../../src/config/json-schema.js';
import { builtinEngines } from '../../src/engines/builtin.js';
import type { EngineClass } from '../../src/engines/contract.js';
import { createApp } from '../../src/app.js';
import { quietLogger } from '../helpers/logger.js';

const schema = configJsonSchema([...(await builtinEngines()), Dense]);

function compile() {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats.default(ajv);
  return ajv.compile(schema);
}

/** JSON paths of object properties that have no description. */
function undescribed(node: unknown, path = '$'): string[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => undescribed(item, `${path}[${i}]`));
  if (node === null || typeof node !== 'object') return [];
  const object = node as Record<string, unknown>;
  const missing: string[] = [];
  if (
    object.properties &&
    typeof object.properties === 'object' &&
    path.split('.').at(-1) !== 'if'
  ) {
    for (const [key, value] of Object.entries(object.properties as Record<string, unknown>)) {
      const property = value as Record<string, unknown>;
      const isRef = typeof property.$ref === 'string' || 'const' in property;
      if (!isRef && typeof property.description !== 'string') missing.push(`${path}.${key}`);
    }
  }
  for (const [key, value] of Object.entries(object))
    missing.push(...undescribed(value, `${path}.${key}`));
  return missing;
}

const bm25 = (config: Record<string, unknown>) => ({
  services: [{ name: 'bm25', engine: 'BM25', config }],
});

describe('config JSON Schema', () => {
  it('compiles under Ajv strict mode', () => {
    expect(() => compile()).not.toThrow();
  });

  it('describes every field, engine configs included', () => {
    expect(undescribed(schema)).toEqual([]);
    const defs = schema.$defs as Record<string, unknown>;
    for (const name of ['BM25', 'RerankAPI', 'LLMScorer', 'LLMDecomposer', 'RRF', 'Dense'])
      expect(defs[`engine.${name}`], name).toBeDefined();
  });

  it("describes every field of every extra's engines", async () => {
    const extras = await Promise.all(
      ['onnx', 'dense', 'sparse', 'plaidx', 'gpu', 'backends'].map(
        async (name) =>
          ((await import(`@irserve/${name}/engines`)) as { engines: EngineClass[] }).engines,
      ),
    );
    expect(undescribed(configJsonSchema(extras.flat()))).toEqual([]);
  });

  it('accepts the quickstart example config', async () => {
    const text = await readFile(
      new URL('../../../../examples/quickstart/config.json', import.meta.url),
      'utf8',
    );
    const validate = compile();
    expect(validate(JSON.parse(text)), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each([
    ['a misspelt key', { colection: 'docs' }],
    ['a number written as a string', { collection: 'docs', k1: '0.9' }],
    ['a value out of range', { collection: 'docs', b: 2 }],
    ['a missing required field', {}],
  ])('rejects an engine config with %s, as the server does', async (_label, config) => {
    expect(compile()(bm25(config))).toBe(false);
    await expect(
      createApp(bm25(config), { logger: quietLogger(), interactive: false }),
    ).rejects.toThrow(/config/);
  });

  it('leaves the config of engines it does not know free', () => {
    const validate = compile();
    expect(validate({ services: [{ name: 'x', engine: 'MyPlugin', config: { any: 1 } }] })).toBe(
      true,
    );
  });

  it('checks Dense and the API engines as well', () => {
    const validate = compile();
    const dense = { index_path: 'i', embedding_base_url: 'http://h/v1', embedding_model_name: 'm' };
    expect(validate({ services: [{ name: 'd', engine: 'Dense', config: dense }] })).toBe(true);
    expect(
      validate({ services: [{ name: 'd', engine: 'Dense', config: { ...dense, k_scale: '2' } }] }),
    ).toBe(false);
    const rerank = { base_url: 'http://h', model: 'm', timout: 3 };
    expect(validate({ services: [{ name: 'r', engine: 'RerankAPI', config: rerank }] })).toBe(
      false,
    );
    expect(validate({ services: [{ name: 'f', engine: 'RRF', config: { k: 1 } }] })).toBe(false);
  });
});
