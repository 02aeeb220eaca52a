/** The engines' config schemas as editors see them (`irserve --print-config-schema`). */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CrossEncoderReranker,
  MT5Reranker,
  MonoT5Reranker,
  parseMT5Config,
  seq2seqOptions,
} from '@irserve/onnx';

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

  it("RoutIR's use_gpu becomes device: auto for true, cpu for false; device wins", () => {
    const device = (config: Record<string, unknown>) =>
      seq2seqOptions(parseMT5Config({ model_path: 'm', ...config })).device;
    expect(device({ use_gpu: true })).toBe('auto');
    expect(device({ use_gpu: false })).toBe('cpu');
    expect(device({ device: 'cuda' })).toBe('cuda');
    expect(device({})).toBeUndefined();
    const files = seq2seqOptions(parseMT5Config({ model_path: 'm', decoder_file: 'd.onnx' }));
    expect(files).toMatchObject({ decoderFile: 'd.onnx', intra_op_threads: 0 });
    expect(files).not.toHaveProperty('encoderFile');
  });
});
