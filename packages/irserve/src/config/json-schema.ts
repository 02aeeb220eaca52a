/**
 * The JSON Schema of the config file (`irserve --print_config_schema`): the zod schema the
 * loader validates with, plus, for each engine class that declares `static configSchema`, that
 * schema applied to the `config` of services naming the engine. Editors show every field's
 * description on hover and flag `"colection"` or `"k1": "0.9"` inside an engine's config.
 */
import { z } from '../prebundled/zod.js';
import type { EngineClass } from '../engines/contract.js';
import { tidySchema } from '../util/tidy-schema.js';
import { configSchema } from './schema.js';

type JsonObject = Record<string, unknown>;

const CONFIG_SCHEMA_ID = 'https://irserve.dev/schema/config.json';

/** The `$defs` key of an engine's config schema. */
const engineDef = (name: string) => `engine.${name}`;

function engineConfigJson(engineClass: EngineClass): JsonObject {
  const { $schema: _schema, ...json } = tidySchema(
    z.toJSONSchema(engineClass.configSchema!, { io: 'input', unrepresentable: 'any' }),
  ) as JsonObject;
  return {
    ...json,
    description:
      (typeof json.description === 'string' ? `${json.description} ` : '') +
      `The config of a service whose engine is ${engineClass.name}.`,
  };
}

/**
 * The config file's JSON Schema with each engine's own `config` schema.
 *
 * @example
 * const schema = configJsonSchema([...(await builtinEngines()), Dense]);
 * // schema.$defs['engine.BM25'].properties.k1 -> { type: 'number', default: 0.9, ... }
 */
export function configJsonSchema(engines: readonly EngineClass[]): Record<string, unknown> {
  const schema = tidySchema(
    z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as unknown,
  ) as JsonObject & {
    properties: { services: { items: JsonObject & { properties: JsonObject } } };
  };
  const service = schema.properties.services.items;
  const described = engines.filter((engineClass) => engineClass.configSchema !== undefined);
  service.properties.engine = {
    ...(service.properties.engine as JsonObject),
    examples: engines.map((engineClass) => engineClass.name),
  };
  service.allOf = described.map((engineClass) => ({
    if: {
      type: 'object',
      properties: { engine: { const: engineClass.name } },
      required: ['engine'],
    },
    then: {
      type: 'object',
      properties: { config: { $ref: `#/$defs/${engineDef(engineClass.name)}` } },
    },
  }));
  return {
    ...schema,
    $id: CONFIG_SCHEMA_ID,
    title: 'irserve configuration',
    $defs: {
      ...(schema.$defs as JsonObject | undefined),
      ...Object.fromEntries(
        described.map((engineClass) => [
          engineDef(engineClass.name),
          engineConfigJson(engineClass),
        ]),
      ),
    },
  };
}
