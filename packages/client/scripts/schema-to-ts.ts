/**
 * JSON Schema (the subset zod emits into irserve's OpenAPI document) to TypeScript type
 * expressions. Small on purpose: every construct the document uses is handled, anything else is
 * an error, so a new construct cannot silently become `unknown`.
 */

export type JsonSchema = Record<string, unknown>;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function literal(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll("'", "\\'")
    .replace(/^"(.*)"$/, "'$1'");
}

function comment(text: unknown, indent: string): string {
  return typeof text === 'string' && text.length > 0
    ? `${indent}/** ${text.replaceAll('*/', '*\\/')} */\n`
    : '';
}

function objectType(schema: JsonSchema, indent: string): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const inner = `${indent}  `;
  const lines = Object.entries(properties).map(([key, property]) => {
    const name = IDENTIFIER.test(key) ? key : literal(key);
    const optional = required.has(key) ? '' : '?';
    return `${comment(property.description, inner)}${inner}${name}${optional}: ${toType(property, inner)};`;
  });
  const extra = schema.additionalProperties;
  if (extra !== undefined && extra !== false) {
    const value = extra === true || Object.keys(extra as JsonSchema).length === 0;
    const valueType = value ? 'unknown' : toType(extra as JsonSchema, inner);
    lines.push(`${inner}[key: string]: ${lines.length > 0 ? 'unknown' : valueType};`);
  }
  if (lines.length === 0) return 'Record<string, never>';
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  return unique.map((part) => (/[|&]/.test(part) ? `(${part})` : part)).join(' | ');
}

/**
 * The TypeScript type of `schema`; `$ref`s to `#/components/schemas/X` become `X`.
 *
 * @example
 * toType({ type: 'array', items: { type: 'string' } }) // 'string[]'
 */
export function toType(schema: JsonSchema, indent = ''): string {
  if (typeof schema.$ref === 'string') return schema.$ref.replace('#/components/schemas/', '');
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map(literal).join(' | ');
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key]))
      return union((schema[key] as JsonSchema[]).map((part) => toType(part, indent)));
  }
  if (Array.isArray(schema.allOf))
    return (schema.allOf as JsonSchema[]).map((part) => `(${toType(part, indent)})`).join(' & ');
  if (Array.isArray(schema.type))
    return union((schema.type as string[]).map((type) => toType({ ...schema, type }, indent)));
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const items = schema.items as JsonSchema | undefined;
      return items ? `${wrap(toType(items, indent))}[]` : 'unknown[]';
    }
    case 'object':
      return objectType(schema, indent);
    case undefined:
      return 'unknown';
    default:
      throw new Error(`schema-to-ts: unsupported type ${JSON.stringify(schema.type)}`);
  }
}

function wrap(type: string): string {
  return /^[A-Za-z0-9_]+$/.test(type) || type.endsWith('}') ? type : `(${type})`;
}

/** A named declaration: an interface for objects, a type alias for the rest. */
export function declaration(name: string, schema: JsonSchema): string {
  const type = toType(schema);
  const doc = comment(schema.description, '');
  return type.startsWith('{')
    ? `${doc}export interface ${name} ${type}\n`
    : `${doc}export type ${name} = ${type};\n`;
}
