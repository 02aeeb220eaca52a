/**
 * Plain JSON to `google.protobuf.Struct` in @grpc/proto-loader's object form and back: the
 * request fields the messages do not name travel in `extras`, and `runtime_kwargs` values are
 * Structs.
 */
type Value = Record<string, unknown>;

function toValue(value: unknown): Value {
  if (value === null || value === undefined) return { nullValue: 'NULL_VALUE' };
  if (typeof value === 'number') return { numberValue: value };
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map(toValue) } };
  if (typeof value === 'object') return { structValue: toStruct(value as Record<string, unknown>) };
  return { nullValue: 'NULL_VALUE' };
}

/**
 * A plain object as a Struct; `undefined` values are left out, as in JSON.
 *
 * @example
 * toStruct({ instruction: 'x' }) // { fields: { instruction: { stringValue: 'x' } } }
 */
export function toStruct(object: Record<string, unknown>): { fields: Record<string, Value> } {
  const fields: Record<string, Value> = {};
  for (const [key, value] of Object.entries(object))
    if (value !== undefined) fields[key] = toValue(value);
  return { fields };
}
