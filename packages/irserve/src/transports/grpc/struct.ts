/**
 * `google.protobuf.Struct` to plain JSON and back, in the object form @grpc/proto-loader uses
 * (`{fields: {k: {kind, stringValue | numberValue | ...}}}`). RoutIR puts free-form request
 * fields (`extras`, `runtime_kwargs`) in Structs.
 */

export interface StructValue {
  kind?: 'nullValue' | 'numberValue' | 'stringValue' | 'boolValue' | 'structValue' | 'listValue';
  nullValue?: unknown;
  numberValue?: number;
  stringValue?: string;
  boolValue?: boolean;
  structValue?: Struct;
  listValue?: { values?: StructValue[] };
}

export interface Struct {
  fields?: Record<string, StructValue>;
}

function fromValue(value: StructValue): unknown {
  switch (value.kind) {
    case 'numberValue':
      return value.numberValue;
    case 'stringValue':
      return value.stringValue;
    case 'boolValue':
      return value.boolValue;
    case 'structValue':
      return fromStruct(value.structValue);
    case 'listValue':
      return (value.listValue?.values ?? []).map(fromValue);
    case 'nullValue':
    case undefined:
      return null;
  }
}

/** A Struct as a plain object; `undefined` or `null` gives `{}`. */
export function fromStruct(struct: Struct | null | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(struct?.fields ?? {})) out[key] = fromValue(value);
  return out;
}

function toValue(value: unknown): StructValue {
  if (value === null || value === undefined) return { nullValue: 'NULL_VALUE' };
  if (typeof value === 'number') return { numberValue: value };
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map(toValue) } };
  if (typeof value === 'object') return { structValue: toStruct(value as Record<string, unknown>) };
  // bigint: not JSON; sent as its decimal form rather than dropped. Functions and symbols: null.
  return typeof value === 'bigint'
    ? { stringValue: value.toString() }
    : { nullValue: 'NULL_VALUE' };
}

/** A plain object as a Struct (values that are `undefined` are left out, as in JSON). */
export function toStruct(object: Record<string, unknown>): Struct {
  const fields: Record<string, StructValue> = {};
  for (const [key, value] of Object.entries(object))
    if (value !== undefined) fields[key] = toValue(value);
  return { fields };
}
