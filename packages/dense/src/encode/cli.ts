/**
 * `irserve-encode <corpus.jsonl[.gz] | --config C --collection N> <output_dir> --model DIR
 * [options]`: embeds a corpus with a local ONNX model into the `.npy` shards
 * irserve-build-index reads, with a progress bar. Errors are one line on stderr and exit code
 * 1 (2 for usage errors), never a stack trace.
 */
import { parseArgs } from 'node:util';
import { defaultIo, isEntryPoint, type CliIo } from 'irserve/plugin';
import { collectionDocuments, jsonlDocuments, type EncodeDocument } from './documents.js';
import { encodeCorpus, type EncodeOptions } from './encode-corpus.js';

export const USAGE = `usage: irserve-encode <corpus.jsonl> <output_dir> --model DIR [options]
       irserve-encode --config config.json --collection NAME <output_dir> --model DIR [options]

  --model DIR            model folder: model.onnx (or onnx/model.onnx) and tokenizer.json
  --id_field F           JSONL id field (default id)
  --fields F1,F2         JSONL fields joined into the text (default title,text)
  --config C --collection N [--view V]   read a collection's text view from an irserve config
  --passage_prompt T     template of each text, {passage} replaced (e.g. "passage: {passage}";
                         default: the model folder's sentence-transformers document prompt)
  --pooling P            cls | mean | max | last_token | none (default: the folder's, else mean)
  --normalize / --no-normalize   L2-normalise (default: the folder's)
  --max_length N         tokens per text (default: the folder's, else 512)
  --batch_size N         texts per model run (default 32)
  --docs_per_file N      vectors per shard (default 50000)
  --dtype float32|float16  shard precision (default float32)
  --threads N            ONNX Runtime intra-op threads (default 0: all cores)
  -h, --help             this text`;

export type { CliIo };

class UsageError extends Error {}

type Parsed = Omit<EncodeOptions, 'documents' | 'total' | 'logger' | 'interactive'> & {
  source: () => AsyncIterable<EncodeDocument>;
};

function integer(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || raw.trim() === '')
    throw new UsageError(`--${name} must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return value;
}

/** Parses argv (without node and script); throws UsageError. */
export function parseEncodeArgs(argv: string[]): Parsed | 'help' {
  const { values: v, positionals } = readFlags(argv);
  if (v.help) return 'help';
  if (!v.model)
    throw new UsageError('--model DIR is required (a folder with model.onnx and tokenizer.json)');
  const fromCollection = v.config !== undefined || v.collection !== undefined;
  const wanted = checkPositionals(v, positionals, fromCollection);
  checkChoices(v);
  const optional = <T>(key: string, value: T | undefined) =>
    value === undefined ? {} : { [key]: value };
  return {
    source: documentSource(v, positionals[0]!, fromCollection),
    outputDir: positionals[wanted - 1]!,
    modelPath: v.model,
    dtype: v.dtype,
    ...optional('passagePrompt', v.passage_prompt),
    ...optional('pooling', v.pooling as EncodeOptions['pooling']),
    ...optional('normalize', v.normalize),
    ...optional('maxLength', integer('max_length', v.max_length)),
    ...optional('batchSize', integer('batch_size', v.batch_size)),
    ...optional('docsPerFile', integer('docs_per_file', v.docs_per_file)),
    ...optional('intraOpThreads', integer('threads', v.threads)),
  };
}

/** The flags and positionals as node:util parses them; an unknown or malformed flag is a UsageError. */
function readFlags(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      allowNegative: true,
      strict: true,
      options: {
        model: { type: 'string' },
        id_field: { type: 'string', default: 'id' },
        fields: { type: 'string', default: 'title,text' },
        config: { type: 'string' },
        collection: { type: 'string' },
        view: { type: 'string' },
        passage_prompt: { type: 'string' },
        pooling: { type: 'string' },
        normalize: { type: 'boolean' },
        max_length: { type: 'string' },
        batch_size: { type: 'string' },
        docs_per_file: { type: 'string' },
        dtype: { type: 'string', default: 'float32' },
        threads: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

type Flags = ReturnType<typeof readFlags>['values'];

/** Checks that the corpus comes from one place; returns how many positionals that takes. */
function checkPositionals(v: Flags, positionals: string[], fromCollection: boolean): number {
  if (fromCollection && (v.config === undefined || v.collection === undefined))
    throw new UsageError('--config and --collection go together');
  const wanted = fromCollection ? 1 : 2;
  if (positionals.length !== wanted)
    throw new UsageError(
      fromCollection ? 'expected <output_dir>' : 'expected <corpus.jsonl> and <output_dir>',
    );
  return wanted;
}

/** Checks the flags that take one of a few values or a template. */
function checkChoices(v: Flags): asserts v is Flags & { dtype: EncodeOptions['dtype'] } {
  const pooling = v.pooling;
  if (pooling !== undefined && !['cls', 'mean', 'max', 'last_token', 'none'].includes(pooling))
    throw new UsageError(`--pooling must be cls, mean, max, last_token or none, got ${pooling}`);
  if (v.dtype !== 'float32' && v.dtype !== 'float16')
    throw new UsageError(`--dtype must be float32 or float16, got ${v.dtype}`);
  if (v.passage_prompt !== undefined && !v.passage_prompt.includes('{passage}'))
    throw new UsageError('--passage_prompt must contain {passage}');
}

/** Where the documents come from: a collection of an irserve config, or a JSONL file. */
function documentSource(
  v: Flags,
  corpus: string,
  fromCollection: boolean,
): () => AsyncIterable<EncodeDocument> {
  const fields = v.fields
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  return fromCollection
    ? () => collectionDocuments(v.config!, v.collection!, v.view)
    : () => jsonlDocuments({ path: corpus, idField: v.id_field, fields });
}

/** Runs the encoder; resolves to the exit code. */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  let options;
  try {
    options = parseEncodeArgs(argv);
  } catch (error) {
    io.err(`irserve-encode: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (options === 'help') {
    io.out(USAGE);
    return 0;
  }
  try {
    const { source, ...rest } = options;
    const total = await countDocuments(source());
    const report = await encodeCorpus({
      ...rest,
      documents: source,
      total,
      logger: { info: (line: string) => io.err(line) },
      interactive: io.interactive ?? false,
    });
    io.out(
      `encoded ${report.count} documents (dim ${report.dim}) into ${report.shards.length} shard(s) in ${rest.outputDir} in ${report.seconds.toFixed(1)}s; next: irserve-build-index ${rest.outputDir} <index_dir>`,
    );
    return 0;
  } catch (error) {
    io.err(`irserve-encode: ${(error as Error).message}`);
    return 1;
  }
}

/** A first pass over the documents, so the progress bar knows its end (cheap next to encoding). */
async function countDocuments(documents: AsyncIterable<EncodeDocument>): Promise<number> {
  let total = 0;
  for await (const doc of documents) if (doc.id !== undefined) total++;
  return total;
}

if (isEntryPoint(import.meta.url, new URL('../../bin/irserve-encode.js', import.meta.url))) {
  process.exitCode = await main(process.argv.slice(2));
}
