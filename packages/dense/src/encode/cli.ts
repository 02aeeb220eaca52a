/**
 * `irserve-encode <corpus.jsonl[.gz] | --config C --collection N> <output_dir> --model DIR
 * [options]`: embeds a corpus with a local ONNX model into the `.npy` shards
 * irserve-build-index reads, with a progress bar. Parsing, `--help`, errors and exit codes are
 * irserve's command-line kit's.
 */
import {
  commonFlags,
  flag,
  isEntryPoint,
  runCommand,
  UsageError,
  type CliIo,
  type CommandSpec,
  type FlagValues,
} from 'irserve/plugin';
import { collectionDocuments, jsonlDocuments, type EncodeDocument } from './documents.js';
import { encodeCorpus, type EncodeOptions } from './encode-corpus.js';

const POOLINGS = ['cls', 'mean', 'max', 'last_token', 'none'] as const;

const FLAGS = {
  model: flag.string({
    placeholder: 'M',
    help: 'model folder (model.onnx or onnx/model.onnx, and tokenizer.json), or a\nHugging Face Hub id (BAAI/bge-small-en-v1.5), fetched into its cache',
  }),
  id_field: flag.string({ placeholder: 'F', default: 'id', help: 'JSONL id field (default id)' }),
  fields: flag.string({
    placeholder: 'F1,F2',
    default: 'title,text',
    help: 'JSONL fields joined into the text (default title,text)',
  }),
  config: flag.string({
    placeholder: 'C',
    help: "with --collection N [--view V]: read a collection's text view\nfrom an irserve config",
  }),
  collection: flag.string({ placeholder: 'N', help: 'the collection of --config' }),
  view: flag.string({ placeholder: 'V', help: "its text view (default: the collection's first)" }),
  passage_prompt: flag.string({
    placeholder: 'T',
    help: 'template of each text, {passage} replaced (e.g. "passage: {passage}";\ndefault: the model folder\'s sentence-transformers document prompt)',
  }),
  pooling: flag.choice(POOLINGS, {
    placeholder: 'P',
    help: `${POOLINGS.join(' | ')} (default: the folder's, else mean)`,
  }),
  normalize: flag.switch({ negatable: true, help: "L2-normalise (default: the folder's)" }),
  max_length: flag.integer({ help: "tokens per text (default: the folder's, else 512)" }),
  batch_size: flag.integer({ help: 'texts per model run (default 32)' }),
  docs_per_file: flag.integer({ help: 'vectors per shard (default 50000)' }),
  dtype: flag.choice(['float32', 'float16'], {
    default: 'float32',
    help: 'shard precision (default float32)',
  }),
  threads: commonFlags.threads({ help: 'ONNX Runtime intra-op threads (default 0: all cores)' }),
};

/** `irserve-encode`: its usage, arguments and flags. */
export const ENCODE: CommandSpec<typeof FLAGS> = {
  name: 'irserve-encode',
  usage: [
    'irserve-encode <corpus.jsonl> <output_dir> --model M [options]',
    'irserve-encode --config config.json --collection NAME <output_dir> --model M [options]',
  ],
  checksPositionals: true,
  flags: FLAGS,
  footer: 'Next: irserve-build-index <output_dir> <index_dir>',
};

type Flags = FlagValues<typeof FLAGS>;

type Parsed = Omit<EncodeOptions, 'documents' | 'total' | 'logger' | 'interactive'> & {
  source: () => AsyncIterable<EncodeDocument>;
};

/** The encode options of a parsed command line; a UsageError when they do not fit together. */
export function encodeOptions(v: Flags, positionals: string[]): Parsed {
  if (!v.model)
    throw new UsageError(
      '--model is required (a folder with model.onnx and tokenizer.json, or a Hugging Face Hub id)',
    );
  const fromCollection = v.config !== undefined || v.collection !== undefined;
  const wanted = checkPositionals(v, positionals, fromCollection);
  if (v.passage_prompt !== undefined && !v.passage_prompt.includes('{passage}'))
    throw new UsageError('--passage_prompt must contain {passage}');
  const optional = <T>(key: string, value: T | undefined) =>
    value === undefined ? {} : { [key]: value };
  return {
    source: documentSource(v, positionals[0]!, fromCollection),
    outputDir: positionals[wanted - 1]!,
    modelPath: v.model,
    dtype: v.dtype,
    ...optional('passagePrompt', v.passage_prompt),
    ...optional('pooling', v.pooling),
    ...optional('normalize', v.normalize),
    ...optional('maxLength', v.max_length),
    ...optional('batchSize', v.batch_size),
    ...optional('docsPerFile', v.docs_per_file),
    ...optional('intraOpThreads', v.threads),
  };
}

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
export function main(argv: string[], io?: CliIo): Promise<number> {
  return runCommand(
    ENCODE,
    argv,
    async ({ flags, positionals, io }) => {
      const { source, ...rest } = encodeOptions(flags, positionals);
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
    },
    io && { io },
  );
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
