/**
 * Measure names as ir_measures writes them: `nDCG@10`, `P@5`, `P(rel=2)@5`, `R@1000`, `AP`,
 * `RR`, `Judged@10`, `nDCG(gains={0:0,1:1,2:3})@10`, `AP(judged_only=True)`. Aliases are read
 * (`MAP`, `MRR`, `NDCG`, `Precision`, `Recall`) and printed under the measure's own name, with
 * parameters at their default left out, as ir_measures prints them.
 */

export type MeasureFamily = 'nDCG' | 'P' | 'R' | 'AP' | 'RR' | 'Judged' | 'Success';

/** A parsed measure: what to compute, and its name in canonical form. */
export interface MeasureSpec {
  readonly family: MeasureFamily;
  /** `@k`: only the top k count; undefined for the whole ranking. */
  readonly cutoff: number | undefined;
  /** Smallest relevance that counts as relevant (default 1). */
  readonly rel: number;
  /** nDCG only: grade to gain; grades not listed keep their own value. */
  readonly gains: ReadonlyMap<number, number> | undefined;
  /** Unjudged documents are removed from the ranking before measuring (trec_eval -J). */
  readonly judgedOnly: boolean;
  /** Canonical name: `P(rel=2)@5`. */
  readonly name: string;
}

const ALIASES: Record<string, MeasureFamily> = {
  nDCG: 'nDCG',
  NDCG: 'nDCG',
  P: 'P',
  Precision: 'P',
  R: 'R',
  Recall: 'R',
  AP: 'AP',
  MAP: 'AP',
  RR: 'RR',
  MRR: 'RR',
  Judged: 'Judged',
  Success: 'Success',
};

/** Parameters each family takes (besides the cutoff), and whether it needs a cutoff. */
const FAMILIES: Record<MeasureFamily, { params: readonly string[]; cutoff: boolean }> = {
  nDCG: { params: ['gains', 'judged_only'], cutoff: false },
  P: { params: ['rel', 'judged_only'], cutoff: true },
  R: { params: ['rel', 'judged_only'], cutoff: true },
  AP: { params: ['rel', 'judged_only'], cutoff: false },
  RR: { params: ['rel', 'judged_only'], cutoff: false },
  Judged: { params: [], cutoff: false },
  Success: { params: ['rel', 'judged_only'], cutoff: true },
};

const SHAPE = /^([A-Za-z]+)(?:\((.*)\))?(?:@(\d+))?$/;

/** The error of a name that does not parse: names the text and what is wrong. */
function bad(text: string, why: string): Error {
  return new Error(`measure "${text}": ${why}`);
}

/**
 * Parses one measure name; throws an Error naming the measure and the problem.
 *
 * @example
 * parseMeasure('MAP').name // 'AP'
 * parseMeasure('P(rel=2)@5') // { family: 'P', cutoff: 5, rel: 2, name: 'P(rel=2)@5', ... }
 */
export function parseMeasure(text: string): MeasureSpec {
  const match = SHAPE.exec(text.replace(/\s+/g, ''));
  if (!match) throw bad(text, 'expected Name, Name@k or Name(param=value,...)@k');
  const [, alias, paramText, cutoffText] = match;
  const family = Object.hasOwn(ALIASES, alias!) ? ALIASES[alias!] : undefined;
  if (family === undefined)
    throw bad(text, `unknown measure ${alias} (known: ${Object.keys(FAMILIES).join(', ')})`);
  const shape = FAMILIES[family];
  const cutoff = cutoffText === undefined ? undefined : Number(cutoffText);
  if (cutoff !== undefined && cutoff < 1) throw bad(text, 'the cutoff must be at least 1');
  if (shape.cutoff && cutoff === undefined)
    throw bad(text, `${family} needs a cutoff: ${family}@k`);
  const params = parseParams(text, paramText ?? '');
  for (const key of params.keys()) {
    if (!shape.params.includes(key)) throw bad(text, unknownParam(family, key, shape.params));
  }
  const rel = intParam(text, params.get('rel') ?? '1', 'rel');
  const gains = params.has('gains') ? parseGains(text, params.get('gains')!) : undefined;
  const judgedOnly = boolParam(text, params.get('judged_only') ?? 'False');
  return {
    family,
    cutoff,
    rel,
    gains,
    judgedOnly,
    name: canonical(family, rel, gains, judgedOnly, cutoff),
  };
}

/** Why `key` is refused, with a hint for nDCG's `rel` (ir_measures gives nDCG none). */
function unknownParam(family: MeasureFamily, key: string, known: readonly string[]): string {
  const list = known.length > 0 ? known.join(', ') : 'none';
  if (family === 'nDCG' && key === 'rel')
    return 'nDCG takes the graded relevance as gain and has no rel (nor in ir_measures or trec_eval); to count only grade 2 and up, map the lower grades to 0: nDCG(gains={1:0})@10';
  return `${family} has no parameter ${key} (parameters: ${list})`;
}

/** `a=1,gains={0:0,1:1}` → Map of name → raw value (braces keep their commas). */
function parseParams(text: string, paramText: string): Map<string, string> {
  const params = new Map<string, string>();
  if (paramText === '') return params;
  for (const part of splitTopLevel(paramText)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw bad(text, `parameters are written name=value, got "${part}"`);
    const key = part.slice(0, eq);
    if (params.has(key)) throw bad(text, `parameter ${key} is given twice`);
    params.set(key, part.slice(eq + 1));
  }
  return params;
}

function splitTopLevel(value: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    if (value[i] === '{') depth++;
    else if (value[i] === '}') depth--;
    else if (value[i] === ',' && depth === 0) {
      parts.push(value.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(value.slice(start));
  return parts;
}

function intParam(text: string, value: string, name: string): number {
  if (!/^-?\d+$/.test(value)) throw bad(text, `${name} must be an integer, got "${value}"`);
  return Number(value);
}

function boolParam(text: string, value: string): boolean {
  if (value === 'True' || value === 'true') return true;
  if (value === 'False' || value === 'false') return false;
  throw bad(text, `judged_only must be True or False, got "${value}"`);
}

/** `{0:0,1:1,2:3}` → Map of grade → gain. */
function parseGains(text: string, value: string): Map<number, number> {
  const inner = /^\{(.*)\}$/.exec(value)?.[1];
  if (inner === undefined) throw bad(text, `gains must be {grade:gain,...}, got "${value}"`);
  const gains = new Map<number, number>();
  for (const pair of inner === '' ? [] : inner.split(',')) {
    const [grade, gain] = pair.split(':');
    if (
      grade === undefined ||
      gain === undefined ||
      !/^-?\d+$/.test(grade) ||
      !Number.isFinite(Number(gain)) ||
      gain === ''
    )
      throw bad(text, `gains must be {grade:gain,...} with integer grades, got "${pair}"`);
    gains.set(Number(grade), Number(gain));
  }
  return gains;
}

/** The name as ir_measures prints it: defaults left out, gains sorted without identities. */
function canonical(
  family: MeasureFamily,
  rel: number,
  gains: ReadonlyMap<number, number> | undefined,
  judgedOnly: boolean,
  cutoff: number | undefined,
): string {
  const params: string[] = [];
  if (rel !== 1) params.push(`rel=${rel}`);
  if (gains !== undefined) {
    const kept = [...gains].filter(([grade, gain]) => grade !== gain).sort(([a], [b]) => a - b);
    params.push(`gains={${kept.map(([grade, gain]) => `${grade}:${gain}`).join(',')}}`);
  }
  if (judgedOnly) params.push('judged_only=True');
  const withParams = params.length > 0 ? `${family}(${params.join(',')})` : family;
  return cutoff === undefined ? withParams : `${withParams}@${cutoff}`;
}

/**
 * Parses a list of measures (each name once, canonical names compared); throws on the first bad one.
 *
 * @example
 * parseMeasures(['nDCG@10', 'MAP']).map((m) => m.name) // ['nDCG@10', 'AP']
 */
export function parseMeasures(names: readonly string[]): MeasureSpec[] {
  const specs = names.map(parseMeasure);
  const seen = new Set<string>();
  for (const spec of specs) {
    if (seen.has(spec.name)) throw new Error(`measure ${spec.name} is listed twice`);
    seen.add(spec.name);
  }
  return specs;
}

/**
 * Measure names from one piece of text: separated by commas or spaces outside parentheses and
 * braces (so `nDCG(gains={0:0,1:1})@10,AP` is two names).
 *
 * @example splitMeasureList('nDCG@10, AP P(rel=2)@5') // ['nDCG@10', 'AP', 'P(rel=2)@5']
 */
export function splitMeasureList(text: string): string[] {
  const names: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '(' || char === '{') depth++;
    if (char === ')' || char === '}') depth--;
    if (depth === 0 && (char === ',' || /\s/.test(char))) {
      if (current) names.push(current);
      current = '';
    } else current += char;
  }
  if (current) names.push(current);
  if (names.length === 0) throw new Error('no measure named');
  return names;
}
