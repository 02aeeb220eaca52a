/**
 * The `irserve` command's subcommands as the command-line kit describes them (usage, arguments,
 * flags). Kept apart from the commands so that `--help` loads nothing else.
 */
import { commonFlags, flag, type CommandSpec } from '../cli-kit/index.js';

export const USAGE = `irserve: a retrieval server (search, rerank, fusion, pipelines, content)

Usage:
  irserve <config.json> [--port 8000] [--host 127.0.0.1] [...]
                                   serve a config (irserve serve --help: every option)
  irserve init <folder|file.jsonl> write a starter config for your JSONL documents
  irserve warmup <config.json>     fetch every model, build every offset map and index ahead of serving
  irserve pull <config.json | hub id>...  fetch models into the Hugging Face cache
  irserve eval <config.json> ...   evaluate a pipeline on queries and qrels
  irserve experiment <config.json> ...
                                   compare pipelines: measures, significance, report
  irserve tune <config.json> ...   learn fusion weights from qrels (cross-validated)
  irserve mcp <config.json>        serve the config as an MCP server over stdio (docs/mcp.md)
  irserve --print_config_schema    print the JSON Schema of the config file
  irserve --help | --version
  irserve <command> --help         the options of one command

Start here:
  npx irserve init ./my-docs       (a folder of .jsonl files, one document per line)
  npx irserve irserve.json         then open http://127.0.0.1:8000/ui

Flags are spelled with underscores (--api_key); the same names with hyphens work too.

Environment:
  IRSERVE_API_KEY     the bearer token (ROUTIR_API_KEY is accepted too)
  HF_HUB_CACHE, HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE   models named by Hugging Face Hub id
                      (docs/models.md)

Docs: docs/ in the repository (configuration, errors, pipelines, collections, BM25, playground,
metrics, MCP, compat APIs).`;

const CONFIG = { name: '<config.json>' };
const API_KEY_ENV = `Environment:
  IRSERVE_API_KEY     the bearer token (ROUTIR_API_KEY is accepted too)
  HF_HUB_CACHE        the Hugging Face cache models are read from and fetched into (default
                      HF_HOME/hub, ~/.cache/huggingface/hub), shared with Python
  HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE   the hub (or a mirror), its token, no network`;

/** `--offline`: serve, warmup and pull never touch the network for models. */
const offline = () =>
  flag.switch({
    help: 'never touch the network for models: hub ids must be in the Hugging Face\ncache (as HF_HUB_OFFLINE=1)',
  });

export const SERVE = {
  name: 'irserve',
  usage: [
    'irserve [serve] <config.json> [--port 8000] [--host 127.0.0.1] [--api_key KEY]',
    '        [--log_level info] [--log_format auto] [--grpc] [--grpc_port 50051]',
    '        [--grpc_max_message_mb 64] [--metrics_port PORT] [--offline]',
  ],
  description:
    'Serves the services and collections of the config over HTTP (and gRPC with --grpc), with the\n' +
    'playground at /ui and Prometheus metrics at /metrics. SIGTERM or SIGINT drains in-flight\n' +
    'requests and exits 0.',
  positionals: [CONFIG],
  flags: {
    port: flag.integer({ max: 65_535, default: 8000, help: 'port to listen on (default 8000)' }),
    host: flag.string({
      placeholder: 'ADDR',
      default: '127.0.0.1',
      help: 'address to bind (default 127.0.0.1; 0.0.0.0 for every interface)',
    }),
    api_key: flag.string({
      placeholder: 'TOKEN',
      help: 'require "Authorization: Bearer <token>" (prefer IRSERVE_API_KEY: argv is\nvisible in process listings)',
    }),
    log_level: commonFlags.logLevel('info'),
    log_format: commonFlags.logFormat(),
    grpc: flag.switch({
      help: 'also serve gRPC (routir.v1.Routir, RoutIR-compatible) on the same host',
    }),
    grpc_port: flag.integer({
      max: 65_535,
      help: 'gRPC port (default 50051; implies --grpc); /avail advertises it',
    }),
    grpc_max_message_mb: flag.number({
      placeholder: 'MB',
      min: 1,
      max: 2047,
      help: 'largest gRPC message sent or received (default 64)',
    }),
    metrics_port: flag.integer({
      max: 65_535,
      help: "serve /metrics on this port without authentication (and not on the\nmain port); overrides the config's metrics.port",
    }),
    offline: offline(),
  },
  footer: API_KEY_ENV,
} satisfies CommandSpec;

export const WARMUP = {
  name: 'irserve warmup',
  usage: ['irserve warmup <config.json> [--offline]'],
  description:
    'Fetches every model the config names by Hugging Face Hub id (into the Hugging Face cache)\n' +
    'and loads it, and builds every offset map, shard index and engine index (BM25) of the\n' +
    'config ahead of serving, with progress bars on a terminal; exits 1 naming what failed.',
  positionals: [CONFIG],
  flags: { log_format: commonFlags.logFormat(), offline: offline() },
} satisfies CommandSpec;

export const PULL = {
  name: 'irserve pull',
  usage: ['irserve pull <config.json | hub id>... [--offline] [--kind auto|onnx|seq2seq|gguf]'],
  description:
    "Fetches into the Hugging Face cache (HF_HUB_CACHE, shared with Python) every model the config's\n" +
    'services name by hub id, or the hub ids given (org/name[@revision][/path][:QUANT]): only the\n' +
    "files the engine serves, resumed after a cut, checked against the hub's hashes. A revision\n" +
    'such as main is asked for its newest commit (serving uses the cached one until the next\n' +
    'pull). Prints one line per model: the commit and the folder. With --offline (or\n' +
    'HF_HUB_OFFLINE=1) it only checks that the cache holds them.',
  positionals: [{ name: '<config.json | hub id>...' }],
  checksPositionals: true,
  flags: {
    offline: offline(),
    kind: flag.choice(['auto', 'onnx', 'seq2seq', 'gguf'] as const, {
      default: 'auto',
      help: 'the files a bare hub id is served from (default auto: by what the\nrepository holds)',
    }),
    log_format: commonFlags.logFormat(),
  },
  footer: `Examples:
  irserve pull config.json
  irserve pull BAAI/bge-small-en-v1.5 Qwen/Qwen3-Embedding-0.6B-GGUF:Q8_0
  HF_HUB_CACHE=/models irserve pull config.json     (then mount /models read-only and serve
                                                     with HF_HUB_OFFLINE=1)`,
} satisfies CommandSpec;

export const INIT = {
  name: 'irserve init',
  usage: ['irserve init <folder|file.jsonl> [options]'],
  description:
    'Writes a starter config for JSONL documents (one JSON object per line; files ending in\n' +
    '.jsonl): for each file a collection with a text view, a BM25 service over it, one more over\n' +
    'the titles when the documents have them, and a pipeline alias fusing the two (RRF). Fields\n' +
    'are detected from the first documents; the flags override the detection.',
  positionals: [{ name: '<folder|file.jsonl>' }],
  flags: {
    out: flag.string({
      placeholder: 'FILE',
      default: 'irserve.json',
      help: 'where to write the config (default irserve.json in this folder)',
    }),
    id_field: flag.string({
      placeholder: 'NAME',
      help: 'the document id field (default: detected: id, _id, docid, doc_id, pid)',
    }),
    text_fields: flag.string({
      placeholder: 'LIST',
      help: 'comma-separated fields joined into the text (default: detected)',
    }),
    title_field: flag.string({
      placeholder: 'NAME',
      help: 'the title field (default: "title" when present)',
    }),
    force: flag.switch({ default: false, help: 'overwrite the output file' }),
  },
  footer: 'Then:  npx irserve irserve.json   and open http://127.0.0.1:8000/ui',
} satisfies CommandSpec;

export const MCP = {
  name: 'irserve mcp',
  usage: ['irserve mcp <config.json> [--log_level warn]'],
  description:
    "Serves the config's services as an MCP server over stdio (what Claude Desktop and other MCP\n" +
    'clients launch); logs go to stderr. The same tools are served over Streamable HTTP at /mcp\n' +
    'by `irserve <config.json>`. See docs/mcp.md.',
  positionals: [CONFIG],
  flags: { log_level: commonFlags.logLevel('warn') },
} satisfies CommandSpec;

/** The flags `irserve eval`, `experiment` and `tune` share. */
const EVALUATION_FLAGS = {
  collection: flag.string({
    placeholder: 'NAME',
    help: 'collection rerank stages read their documents from (needed only then)',
  }),
  queries: flag.string({
    placeholder: 'FILE',
    help: 'JSONL: {"id": ..., "text": ...} per line ("_id" and "query" also\nread; required)',
  }),
  qrels: flag.string({
    placeholder: 'FILE',
    help: 'TREC qrels (qid 0 docid rel) or BEIR TSV (query-id corpus-id\nscore; required)',
  }),
  concurrency: flag.integer({
    min: 1,
    max: 1024,
    default: 16,
    help: 'queries in flight (default 16)',
  }),
};

/** `--max_failures`: how many failed queries a run tolerates (each scores 0). */
const MAX_FAILURES = flag.integer({
  default: 50,
  help: 'stop after more than N failed queries (default 50; a failed query\nscores 0, is reported, and makes the exit code 1)',
});

export const EVAL = {
  name: 'irserve eval',
  usage: [
    'irserve eval <config.json> --pipeline "<expr>" --queries <queries.jsonl> --qrels <qrels.tsv>',
    '             [--collection <name>] [--measures nDCG@10,AP,R@100,R@1000] [--run <out.trec>]',
  ],
  description:
    'Runs every judged query through the pipeline (in process, no HTTP) and prints its measures,\n' +
    'computed as trec_eval does (means over the queries of the qrels). The pipeline, the files and\n' +
    "the run's folder are checked before the first query. docs/experiments.md.",
  positionals: [CONFIG],
  flags: {
    pipeline: flag.string({
      placeholder: 'EXPR',
      help: 'pipeline expression or alias, e.g. "{bm25, bm25-title}RRF%50 >> bm25" (required)',
    }),
    ...EVALUATION_FLAGS,
    measures: flag.string({
      placeholder: 'LIST',
      default: 'nDCG@10,AP,R@100,R@1000',
      help: 'ir_measures names, comma-separated (default nDCG@10,AP,R@100,R@1000)',
    }),
    run: flag.string({
      placeholder: 'FILE',
      help: 'also write the run in TREC format (qid Q0 docid rank score irserve); its\nfolder is created',
    }),
    max_failures: MAX_FAILURES,
    log_level: commonFlags.logLevel('warn'),
  },
} satisfies CommandSpec;

/** The measures `irserve experiment` reports when --measures is not given. */
const EXPERIMENT_MEASURES = 'nDCG@10,AP,RR,P@10,R@100,R@1000,Judged@10';

export const EXPERIMENT = {
  name: 'irserve experiment',
  usage: [
    'irserve experiment <config.json> --queries <queries.jsonl> --qrels <qrels.tsv>',
    '                   --pipeline [name=]<expr> --pipeline [name=]<expr> ... [--baseline <name|n>]',
    '                   [--collection <name>] [--measures <list>] [--out <dir>]',
  ],
  description:
    "Runs every judged query through every pipeline (in process, sharing the services' caches),\n" +
    "prints each pipeline's measures and, against the baseline, paired t-test and randomisation\n" +
    "test p-values (Holm-Bonferroni-adjusted), Cohen's d and wins/losses/ties. Everything is\n" +
    'checked before the first query. docs/experiments.md.',
  positionals: [CONFIG],
  flags: {
    pipeline: flag.strings({
      placeholder: '[NAME=]EXPR',
      help: 'a pipeline expression or alias, repeated; name= names it (required)',
    }),
    baseline: flag.string({
      placeholder: 'NAME|N',
      help: 'the pipeline the others are compared with: its name or position\n(default the first)',
    }),
    ...EVALUATION_FLAGS,
    measures: flag.string({
      placeholder: 'LIST',
      default: EXPERIMENT_MEASURES,
      help: `ir_measures names, comma-separated (default\n${EXPERIMENT_MEASURES}; P(rel=2)@5 for graded qrels)`,
    }),
    out: flag.string({
      placeholder: 'DIR',
      help: 'write report.html (self-contained), results.json, per-query.csv and\nruns/<n>-<name>.trec there (created)',
    }),
    title: flag.string({ placeholder: 'TEXT', help: "the report's title" }),
    trials: flag.integer({
      min: 100,
      max: 10_000_000,
      default: 10_000,
      help: 'random sign flips of the randomisation test (default 10000)',
    }),
    seed: flag.integer({
      max: 2 ** 32 - 1,
      default: 42,
      help: 'seed of the randomisation test (default 42)',
    }),
    max_failures: MAX_FAILURES,
    log_level: commonFlags.logLevel('warn'),
  },
} satisfies CommandSpec;

export const TUNE = {
  name: 'irserve tune',
  usage: [
    'irserve tune <config.json> --pipeline "{a, b, ...}Rule%N" --queries <queries.jsonl>',
    '             --qrels <qrels.tsv> [--measure nDCG@10] [--folds 5] [--name tuned]',
  ],
  description:
    "Learns the parameters of a fusion from the judgements: WeightedRRF's weights and k,\n" +
    "ScoreFusion's weights, RRF's k. The branches run once per query; every setting is then fused\n" +
    "as the server fuses and measured. k-fold cross-validation picks a setting on each fold's\n" +
    'training queries and measures it on the held-out ones (the gain to expect); the setting picked\n' +
    'on every query is checked through the server and printed as a config snippet: a fusion\n' +
    'service with the parameters and a pipeline alias using it. docs/experiments.md.',
  positionals: [CONFIG],
  flags: {
    pipeline: flag.string({
      placeholder: 'EXPR',
      help: 'one fusion group, or an alias of one: "{bm25, dense}WeightedRRF%100"\n(required)',
    }),
    fusion: flag.choice(['WeightedRRF', 'ScoreFusion', 'RRF'] as const, {
      help: 'the rule when the merger is a configured service',
    }),
    ...EVALUATION_FLAGS,
    measure: flag.string({
      placeholder: 'NAME',
      default: 'nDCG@10',
      help: 'what to maximise (default nDCG@10; any ir_measures name)',
    }),
    folds: flag.integer({
      min: 2,
      max: 100,
      default: 5,
      help: 'cross-validation folds (default 5)',
    }),
    search: flag.choice(['auto', 'grid', 'coordinate'] as const, {
      default: 'auto',
      help: "grid (every setting, as ranx's optimize_fusion), coordinate (coordinate\nascent from equal weights), or auto (default: grid up to 2000 settings)",
    }),
    step: flag.number({
      default: 0.1,
      help: 'grid step of the weights, which sum to 1 (default 0.1)',
    }),
    k: flag.string({
      placeholder: 'LIST',
      help: 'k values to try (default 10,20,...,100; one value fixes k)',
    }),
    seed: flag.integer({
      max: 2 ** 32 - 1,
      default: 42,
      help: "seed of the folds' shuffle (default 42)",
    }),
    name: flag.string({
      placeholder: 'ALIAS',
      default: 'tuned',
      help: 'the alias to write (default tuned; the service is <alias>-fusion)',
    }),
    out: flag.string({
      placeholder: 'FILE',
      help: 'also write the snippet and every figure as JSON',
    }),
    log_level: commonFlags.logLevel('warn'),
  },
} satisfies CommandSpec;

export const PRINT_CONFIG_SCHEMA = {
  name: 'irserve --print_config_schema',
  usage: ['irserve --print_config_schema [--file_imports a.mjs,b.ts]'],
  description:
    "Prints the config file's JSON Schema, with the config schema of every engine this\n" +
    'installation has (built-ins, installed @irserve/* extras, and the named plugin files).',
  flags: {
    file_imports: flag.string({
      placeholder: 'LIST',
      help: 'comma-separated plugin files whose engines the schema includes',
    }),
  },
} satisfies CommandSpec;
