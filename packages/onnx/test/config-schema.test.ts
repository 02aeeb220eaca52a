/** The engines' config schemas as editors see them (`irserve --print-config-schema`). */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CrossEncoderReranker, MT5Reranker, MonoT5Reranker } from '@irserve/onnx';

/** Properties of a JSON Schema object with no description. */
function undescribed(schema: Record<string, unknown>): string[] {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(properties)
    .filter(([, property]) => typeof property.description !== 'string')
    .map(([key]) => key);
}

describe('engine config schemas', () => {
  it.each([CrossEncoderReranker, MT5Reranker, MonoT5Reranker])(
    '%o describes every field',
    (engine) => {
      const json = z.toJSONSchema(engine.configSchema, { io: 'input', unrepresentable: 'any' });
      expect(Object.keys(json.properties ?? {}).length).toBeGreaterThan(5);
      expect(undescribed(json as Record<string, unknown>)).toEqual([]);
    },
  );

  it("MT5Reranker's defaults are RoutIR's", () => {
    const json = z.toJSONSchema(MT5Reranker.configSchema, { io: 'input' }) as {
      properties: Record<string, { default?: unknown }>;
    };
    expect(json.properties.q_max_length!.default).toBe(180);
    expect(json.properties.d_max_length!.default).toBe(512);
    expect(json.properties.batch_size!.default).toBe(32);
    expect(json.properties.prompt!.default).toBe('Query: {query} Document: {document} Relevant:');
  });
});
