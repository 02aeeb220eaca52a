/**
 * One line of an encoded corpus (Anserini's JsonVectorCollection): `{"id": "d1", "vector":
 * {"token": weight, ...}}`. Other fields (`contents`, ...) are ignored. Weights must be finite
 * and non-negative; a term whose impact rounds to 0 is dropped, as Anserini drops it.
 */

/** A passage's terms after quantisation: tokens and their impacts, in line order. */
export interface PassageVector {
  id: string;
  tokens: string[];
  impacts: number[];
}

/** Limits that keep one hostile line from exhausting memory. */
export const MAX_TERMS_PER_PASSAGE = 100_000;
export const MAX_TOKEN_LENGTH = 1_000;
export const MAX_ID_LENGTH = 10_000;
/** Integer impacts are stored in 16 bits. */
export const MAX_INTEGER_IMPACT = 65_535;

/** A line that cannot be indexed; the message says why (the caller adds file and line). */
export class BadRecord extends Error {}

/**
 * Turns a weight into the stored impact: `trunc(weight * quantization)` (Anserini's and
 * RoutIR's `int(q * w)`), or the float32 weight itself when `quantization` is 0.
 *
 * @example quantize(0.53, 50) // 26
 */
export function quantize(weight: number, quantization: number): number {
  return quantization === 0 ? Math.fround(weight) : Math.trunc(weight * quantization);
}

function checkWeight(token: string, weight: unknown, quantization: number): number {
  if (typeof weight !== 'number' || !Number.isFinite(weight))
    throw new BadRecord(`vector["${token}"] is not a finite number (${JSON.stringify(weight)})`);
  if (weight < 0) throw new BadRecord(`vector["${token}"] is negative (${weight})`);
  const impact = quantize(weight, quantization);
  if (quantization > 0 && impact > MAX_INTEGER_IMPACT)
    throw new BadRecord(
      `vector["${token}"] = ${weight} times quantization ${quantization} is ${impact}, above ${MAX_INTEGER_IMPACT} (lower --quantization; use 1 for a corpus of integer weights)`,
    );
  if (!Number.isFinite(impact)) throw new BadRecord(`vector["${token}"] overflows float32`);
  return impact;
}

function recordId(value: unknown): string {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value !== 'string' || value === '')
    throw new BadRecord('"id" is missing or not a non-empty string');
  if (value.length > MAX_ID_LENGTH) throw new BadRecord(`"id" is longer than ${MAX_ID_LENGTH}`);
  return value;
}

/**
 * Parses and checks one line; throws BadRecord naming the field at fault.
 *
 * @example parseRecord('{"id":"d1","vector":{"cat":1.2}}', 50) // { id: 'd1', tokens: ['cat'], impacts: [60] }
 */
export function parseRecord(line: string, quantization: number): PassageVector {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new BadRecord(`not valid JSON (${(error as Error).message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new BadRecord('not a JSON object');
  const record = value as { id?: unknown; vector?: unknown };
  const id = recordId(record.id);
  const vector = record.vector;
  if (vector === null || typeof vector !== 'object' || Array.isArray(vector))
    throw new BadRecord('"vector" is missing or not an object of token to weight');
  const tokens: string[] = [];
  const impacts: number[] = [];
  for (const token in vector) {
    if (tokens.length >= MAX_TERMS_PER_PASSAGE)
      throw new BadRecord(`"vector" has more than ${MAX_TERMS_PER_PASSAGE} terms`);
    if (token.length === 0 || token.length > MAX_TOKEN_LENGTH)
      throw new BadRecord(`a token of "vector" is empty or longer than ${MAX_TOKEN_LENGTH}`);
    const impact = checkWeight(token, (vector as Record<string, unknown>)[token], quantization);
    if (impact === 0) continue;
    tokens.push(token);
    impacts.push(impact);
  }
  return { id, tokens, impacts };
}
