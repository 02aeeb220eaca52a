// Usage texts of every command. Kept apart from the commands so that `--help` loads nothing else.

export const USAGE = `irserve: a retrieval server (search, rerank, fusion, pipelines, content)

Usage:
  irserve <config.json> [--port 8000] [--host 127.0.0.1] [...]
                                   serve a config (irserve serve --help: every option)
  irserve init <folder|file.jsonl> write a starter config for your JSONL documents
  irserve warmup <config.json>     build every offset map and index ahead of serving
  irserve eval <config.json> ...   evaluate a pipeline on queries and qrels
  irserve mcp <config.json>        serve the config as an MCP server over stdio (docs/mcp.md)
  irserve --print-config-schema    print the JSON Schema of the config file
  irserve --help | --version
  irserve <command> --help         the options of one command

Start here:
  npx irserve init ./my-docs       (a folder of .jsonl files, one document per line)
  npx irserve irserve.json         then open http://127.0.0.1:8000/ui

Environment:
  IRSERVE_API_KEY     the bearer token (ROUTIR_API_KEY is accepted too)

Docs: docs/ in the repository (configuration, errors, pipelines, collections, BM25, playground,
metrics, MCP, compat APIs).`;

export const SERVE_USAGE = `Usage: irserve [serve] <config.json> [--port 8000] [--host 127.0.0.1] [--api_key KEY]
          [--log-level info] [--log-format auto] [--grpc] [--grpc_port 50051]
          [--grpc_max_message_mb 64] [--metrics_port PORT]

Serves the services and collections of the config over HTTP (and gRPC with --grpc), with the
playground at /ui and Prometheus metrics at /metrics. SIGTERM or SIGINT drains in-flight requests
and exits 0.

Options:
  --port <int>        port to listen on (default 8000)
  --host <addr>       address to bind (default 127.0.0.1; 0.0.0.0 for every interface)
  --api_key <token>   require "Authorization: Bearer <token>" (prefer IRSERVE_API_KEY: argv is
                      visible in process listings)
  --log-level <lvl>   fatal, error, warn, info (default), debug, trace, silent
  --log-format <fmt>  auto (default: pretty on a terminal, JSON otherwise), pretty, json
  --grpc              also serve gRPC (routir.v1.Routir, RoutIR-compatible) on the same host
  --grpc_port <int>   gRPC port (default 50051; implies --grpc); /avail advertises it
  --grpc_max_message_mb <n>  largest gRPC message sent or received (default 64)
  --metrics_port <int>  serve /metrics on this port without authentication (and not on the
                      main port); overrides the config's metrics.port

Environment:
  IRSERVE_API_KEY     the bearer token (ROUTIR_API_KEY is accepted too)`;

export const WARMUP_USAGE = `Usage: irserve warmup <config.json>

Builds every offset map, shard index and engine index (BM25) of the config ahead of serving, with
progress bars on a terminal; exits 1 naming what failed.`;

export const INIT_USAGE = `Usage: irserve init <folder|file.jsonl> [--out irserve.json] [--id-field F]
          [--text-fields F1,F2] [--title-field F] [--force]

Writes a starter config for JSONL documents (one JSON object per line; files ending in .jsonl):
for each file a collection with a text view, a BM25 service over it, one more over the titles
when the documents have them, and a pipeline alias fusing the two (RRF). Fields are detected from the first documents; the flags override the detection.

  --out <file>          where to write the config (default irserve.json in this folder)
  --id-field <name>     the document id field (default: detected: id, _id, docid, doc_id, pid)
  --text-fields <list>  comma-separated fields joined into the text (default: detected)
  --title-field <name>  the title field (default: "title" when present)
  --force               overwrite the output file

Then:  npx irserve irserve.json   and open http://127.0.0.1:8000/ui`;

export const MCP_USAGE = `Usage: irserve mcp <config.json> [--log-level warn]

Serves the config's services as an MCP server over stdio (what Claude Desktop and other MCP
clients launch); logs go to stderr. The same tools are served over Streamable HTTP at /mcp by
\`irserve <config.json>\`. See docs/mcp.md.`;

export const EVAL_USAGE = `Usage: irserve eval <config.json> --pipeline "<expr>" --collection <name>
                    --queries <queries.jsonl> --qrels <qrels.tsv> [--run <out.trec>] [--concurrency 16]

Runs every judged query through the pipeline (in process, no HTTP) and prints nDCG@10, MAP,
R@100 and R@1000, computed as trec_eval does (means over the queries of the qrels).

  --pipeline <expr>     pipeline expression, e.g. "{bm25, bm25-title}RRF%50 >> bm25"
  --collection <name>   collection the pipeline reads (rerank stages fetch its content)
  --queries <file>      JSONL: {"id": ..., "text": ...} per line ("_id" and "query" also read)
  --qrels <file>        TREC qrels (qid 0 docid rel) or BEIR TSV (query-id corpus-id score)
  --run <file>          also write the run in TREC format (qid Q0 docid rank score irserve)
  --concurrency <n>     queries in flight (default 16)
  --log-level <lvl>     log level of the app (default warn)`;
