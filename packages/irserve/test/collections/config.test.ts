import { describe, expect, it } from 'vitest';
import { collectionConfigSchema } from '../../src/collections/config.js';

const parse = (value: unknown) => collectionConfigSchema.safeParse(value);
const messages = (value: unknown) => {
  const result = parse(value);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};
const jsonl = { source: { source: 'text_jsonl', doc_path: 'd.jsonl' } };

describe('collection config', () => {
  it('applies defaults (id field, content processor cache 256 / 600 s)', () => {
    const c = collectionConfigSchema.parse({ name: 'c', views: { t: jsonl } });
    expect(c).toMatchObject({ id_field: 'id', cache: 256, cache_ttl: 600 });
    expect(c.views.t?.source).toMatchObject({
      id_field: 'id',
      content_fields: 'text',
      sep: '\n',
      offset_source: 'offsetfile',
    });
  });

  it('accepts the deprecated doc_path form and RoutIR field names', () => {
    expect(
      parse({
        name: 'c',
        doc_path: 'd.jsonl',
        id_field: 'docid',
        content_field: ['title', 'body'],
        cache_path: 'maps',
      }).success,
    ).toBe(true);
    expect(parse({ name: 'c', processor: 'ContentProcessor', views: { t: jsonl } }).success).toBe(
      true,
    );
  });

  it('rejects unknown keys, at every level', () => {
    expect(messages({ name: 'c', views: { t: jsonl }, typo: 1 }).join()).toMatch(/typo/);
    expect(
      messages({ name: 'c', views: { t: { source: { ...jsonl.source, idfield: 'x' } } } }).join(),
    ).toMatch(/idfield/);
  });

  it('needs a view, and a default_view when there are several', () => {
    expect(messages({ name: 'c' }).join()).toMatch(/at least one view/);
    expect(messages({ name: 'c', views: { a: jsonl, b: jsonl } }).join()).toMatch(
      /default_view: required/,
    );
    expect(messages({ name: 'c', views: { a: jsonl }, default_view: 'b' }).join()).toMatch(
      /not a view/,
    );
    expect(parse({ name: 'c', views: { a: jsonl, b: jsonl }, default_view: 'b' }).success).toBe(
      true,
    );
  });

  it('refuses mixing doc_path with views, and legacy fields without doc_path', () => {
    expect(messages({ name: 'c', views: { a: jsonl }, doc_path: 'x' }).join()).toMatch(
      /cannot be combined/,
    );
    expect(messages({ name: 'c', views: { a: jsonl }, content_field: 'x' }).join()).toMatch(
      /only used with the deprecated doc_path/,
    );
  });

  it('checks source kinds and fields', () => {
    expect(
      messages({ name: 'c', views: { a: { kind: 'bytes', source: jsonl.source } } }).join(),
    ).toMatch(/makes a text view/);
    expect(
      messages({
        name: 'c',
        views: {
          a: { source: { source: 'local_path', path_template: 'a/{id}', path_glob: '{id}*' } },
        },
      }).join(),
    ).toMatch(/exactly one/);
    expect(
      messages({
        name: 'c',
        views: { a: { source: { source: 'local_path', path_template: 'a/x' } } },
      }).join(),
    ).toMatch(/\{id\}/);
    expect(
      messages({
        name: 'c',
        views: {
          a: {
            source: {
              source: 'tar',
              tar_template: 's-{shard}.tar',
              matcher: { kind: 'glob', pattern: '{id}' },
            },
          },
        },
      }).join(),
    ).toMatch(/shard_resolver/);
    expect(
      messages({
        name: 'c',
        views: {
          a: {
            source: {
              source: 'tar',
              tar_template: 's.tar.gz',
              matcher: { kind: 'glob', pattern: '{id}' },
            },
          },
        },
      }).join(),
    ).toMatch(/compressed/);
    expect(
      messages({
        name: 'c',
        views: { a: { source: { source: 'gzip_shards', shard_pattern: 'x.gz' } } },
      }).join(),
    ).toMatch(/\{shard\}/);
    const gz = collectionConfigSchema.parse({
      name: 'c',
      views: { a: { source: { source: 'gzip_shards', shard_pattern: 'x_{shard}.gz' } } },
    });
    expect(gz.views.a?.source).toMatchObject({ num_workers: 32, force_load_all: false });
  });
});
